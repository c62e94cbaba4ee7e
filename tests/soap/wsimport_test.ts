/**
 * Interoperability with wsimport (JAX-WS, Java): the classes wsimport generates from our WSDL
 * (and the XSD it imports) call every operation against a server process, as the original
 * service's Java clients do. The server serves on `TEST_WORKERS` isolates (CI runs this test
 * with 1 and 2); the client turns keep-alive off, so its repeated calls each take a connection
 * of their own and reach every isolate. Needs Debian's jaxws, libjaxws-java and a JDK; skipped
 * with a warning without them, but required when CI=true.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { removeDataDir, startServer, storedEngine } from "../helpers/main_process.ts";

const CLIENT = join(import.meta.dirname!, "wsimport", "Client.java");
const JARS = "/usr/share/java";
/**
 * The JAX-WS runtime as Debian packages it: jaxws-rt.jar's manifest names the rest of the
 * implementation; the APIs Java 11 no longer ships are listed.
 */
const CLASSPATH = [
  "jaxws-rt.jar",
  "jaxws-api.jar",
  "jws-api.jar",
  "jaxb-api.jar",
  "jaxb-impl.jar",
  "javax.activation.jar",
  "javax.xml.soap-api.jar",
  "saaj-impl.jar",
].map((jar) => join(JARS, jar));
/** Quiets the runtime's monitoring, which Debian's packaging leaves incomplete (a warning). */
const JVM_FLAGS = [
  "-Dcom.sun.xml.ws.monitoring.endpoint=false",
  "-Dcom.sun.xml.ws.monitoring.client=false",
  "-Dhttp.keepAlive=false",
];
const inCi = Deno.env.get("CI") === "true";

async function runs(command: string, args: string[]): Promise<boolean> {
  try {
    return (await new Deno.Command(command, { args, stdout: "null", stderr: "null" }).output())
      .success;
  } catch {
    return false;
  }
}

const available = await runs("wsimport", ["-version"]) && await runs("javac", ["-version"]) &&
  await Deno.stat(join(JARS, "jaxws-rt.jar")).then(() => true, () => false);
if (!available && !inCi) {
  console.warn(
    "\n!!! WARNING: wsimport, javac or Debian's jaxws-rt.jar is missing: the wsimport test is " +
      "SKIPPED. Install Debian's jaxws, libjaxws-java and openjdk-17-jdk-headless. !!!\n",
  );
}

/** Runs `command`; its standard output, or a failure with both outputs. */
async function run(command: string, args: string[], cwd: string): Promise<string> {
  const out = await new Deno.Command(command, { args, cwd, stdout: "piped", stderr: "piped" })
    .output();
  const text = (bytes: Uint8Array) => new TextDecoder().decode(bytes);
  assert.ok(out.success, `${command} ${args.join(" ")}:\n${text(out.stdout)}\n${text(out.stderr)}`);
  return text(out.stdout);
}

Deno.test({
  name: "soap: a wsimport client generated from the WSDL calls every operation",
  ignore: !available && !inCi,
  async fn() {
    assert.ok(available, "wsimport, javac and Debian's jaxws-rt.jar are required in CI");
    const dataDir = await Deno.makeTempDir({ prefix: "wsimport-test-" });
    const work = await Deno.makeTempDir({ prefix: "wsimport-client-" });
    const server = await startServer(dataDir);
    const repeats = 12;
    try {
      const classes = join(work, "classes");
      await Deno.mkdir(classes);
      // Generated and compiled from the documents the server serves, as a user would.
      for (const [path, pkg] of [["/hello?wsdl", "gen.hello"], ["/loan?wsdl", "gen.loan"]]) {
        await run(
          "wsimport",
          ["-quiet", "-p", pkg!, "-d", classes, `${server.baseUrl}${path}`],
          work,
        );
      }
      const cp = [classes, ...CLASSPATH].join(":");
      await run("javac", ["-cp", cp, "-d", classes, CLIENT], work);
      const out = await run(
        "java",
        [...JVM_FLAGS, "-cp", cp, "Client", server.baseUrl, String(repeats)],
        work,
      );
      const r = Object.fromEntries(
        out.trim().split("\n").map((
          l,
        ) => [l.slice(0, l.indexOf("=")), l.slice(l.indexOf("=") + 1)]),
      );
      assert.deepEqual(r, {
        hello: "Hello World, Alice!",
        helloEmpty: "Name cannot be null or empty",
        registerZed: "Registration Successful",
        registerZedAgain: "Error: Customer already exists",
        registerEmpty: "Customer name cannot be null or empty",
        loanAnn: "true|3.5|null|Loan approved with excellent rate",
        loanZed: "false|0.0|Applicant is blacklisted|Loan application rejected",
        loanNoScore: "true|3.5|null|Loan approved with excellent rate",
        loanZero: "Requested amount must be greater than 0",
        greetings: "[Hello World, Bo!]",
        decisions: "[true|3.5|null|Loan approved with excellent rate]",
      });
    } finally {
      await server.stop();
      await Deno.remove(work, { recursive: true });
    }
    // Every decision answered is stored; the faults stored nothing.
    const stored = await storedEngine(dataDir);
    try {
      const rows = await stored.all<{ n: number }>("SELECT COUNT(*) AS n FROM loan_history");
      assert.equal(Number(rows[0]!.n), 3 + repeats);
    } finally {
      await stored.close();
      await removeDataDir(dataDir);
    }
  },
});
