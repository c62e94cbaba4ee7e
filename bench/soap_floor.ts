/**
 * How far `getHelloWorld` can get against the ceiling of `bench/soap_bench.ts`, whatever the
 * rest of the handler does: the same `wrk` load, rounds alternating between the ceiling and
 *
 * - **floor** × 1: one process that reads the body, decodes it as strict UTF-8, runs saxes
 *   (namespace-aware) over it and answers a fixed envelope with one `content-type` header;
 *   nothing else (no checks, no tree, no dispatch, no security headers, no log line);
 * - **full** × 1: one process serving `/hello` as the server does (the SOAP fast path of
 *   `routes/soap_fast_path.ts` with the request log), without the rest of the application;
 * - **full** × 2: two such processes on one port (`SO_REUSEPORT`), the kernel spreading the
 *   connections: what a second JavaScript thread would give on this machine.
 *
 * Usage: `deno run --allow-all bench/soap_floor.ts` (needs `wrk`). No target: it prints the
 * median ratio of each. `BENCH_ROUNDS` (default 5) rounds of `BENCH_ROUND_SECONDS` (3).
 */
import { join } from "node:path";
import { SaxesParser } from "saxes";
import type { LoanService } from "../domain/loan/loan.ts";
import { requestLog, stdoutLog } from "../routes/middleware/request_log.ts";
import { soapFastPath } from "../routes/soap_fast_path.ts";
import { soapEndpoints } from "../soap/endpoint.ts";
import {
  BenchError,
  envNumber,
  freePort,
  runMain,
  running,
  type Server,
  spawn,
  stop,
  tempDirs,
  waitUntilReady,
} from "./harness.ts";

const NS = "http://soap.example.com/";
const ENVELOPE = '<soapenv:Envelope xmlns:soapenv="http://schemas.xmlsoap.org/soap/envelope/" ' +
  `xmlns:soap="${NS}"><soapenv:Header/><soapenv:Body><soap:getHelloWorld>` +
  "<arg0>Alice</arg0></soap:getHelloWorld></soapenv:Body></soapenv:Envelope>";
const RESPONSE = "<?xml version='1.0' encoding='UTF-8'?><S:Envelope " +
  'xmlns:S="http://schemas.xmlsoap.org/soap/envelope/"><S:Body><ns2:getHelloWorldResponse ' +
  `xmlns:ns2="${NS}"><return>Hello World, Alice!</return>` +
  "</ns2:getHelloWorldResponse></S:Body></S:Envelope>";
const V8_FLAGS = "--v8-flags=--max-semi-space-size=8";

type Mode = "floor" | "full";

/** Server mode: one process of `mode` on `port`, sharing it with its siblings. */
function serve(mode: Mode, port: number): void {
  let handler: (request: Request) => Response | Promise<Response>;
  if (mode === "floor") {
    const utf8 = new TextDecoder("utf-8", { fatal: true });
    const saxes = new SaxesParser({ xmlns: true, position: false });
    handler = async (request) => {
      if (request.method === "GET") return new Response("ok"); // readiness
      saxes.write(utf8.decode(await request.bytes())).close();
      return new Response(RESPONSE, { headers: { "content-type": "text/xml; charset=utf-8" } });
    };
  } else {
    // getHelloWorld needs no loan service.
    const soap = soapEndpoints({} as LoanService, { namespace: NS, baseUrl: null });
    const readiness = () => new Response("ok"); // every path but /hello and /loan
    handler = soapFastPath(readiness, {
      ...soap,
      log: requestLog("text", stdoutLog().write),
      hsts: false,
    });
  }
  Deno.serve({ port, hostname: "127.0.0.1", reusePort: true, onListen: () => {} }, handler);
}

async function wrkRate(url: string, script: string, seconds: number): Promise<number> {
  const child = new Deno.Command("wrk", {
    args: ["-t2", "-c64", `-d${seconds}s`, "-s", script, url],
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  running.add(child);
  const output = await child.output();
  running.delete(child);
  const text = new TextDecoder().decode(output.stdout);
  const match = /Requests\/sec:\s+([\d.]+)/.exec(text);
  const non2xx = /Non-2xx or 3xx responses: (\d+)/.exec(text);
  if (!output.success || !match) throw new BenchError(`wrk failed:\n${text}`);
  if (non2xx) throw new BenchError(`${url}: ${non2xx[1]} responses were not 2xx`);
  return Number(match[1]);
}

async function run(): Promise<boolean> {
  const rounds = envNumber("BENCH_ROUNDS", 5, 1);
  const seconds = envNumber("BENCH_ROUND_SECONDS", 3, 1);
  const root = join(import.meta.dirname!, "..");
  const temp = await Deno.makeTempDir({ prefix: "soap-floor-" });
  tempDirs.push(temp);
  const script = join(temp, "hello.lua");
  await Deno.writeTextFile(
    script,
    `wrk.method = "POST"\nwrk.body = [==[${ENVELOPE}]==]\n` +
      `wrk.headers["Content-Type"] = "text/xml; charset=utf-8"\nwrk.headers["SOAPAction"] = '""'\n`,
  );
  const env = {};
  const ceilingPort = freePort();
  const ceiling = spawn(
    "ceiling",
    ["run", "--allow-net", join(root, "bench", "ceiling_server.ts"), String(ceilingPort)],
    { env, cwd: root, port: ceilingPort },
  );
  await waitUntilReady(ceiling, "/");
  const configs: Array<{ mode: Mode; processes: number }> = [
    { mode: "floor", processes: 1 },
    { mode: "full", processes: 1 },
    { mode: "full", processes: 2 },
  ];
  const ratios = new Map<string, number[]>();
  for (const config of configs) {
    const label = `${config.mode} × ${config.processes}`;
    const port = freePort();
    const servers: Server[] = [];
    for (let i = 0; i < config.processes; i++) {
      servers.push(spawn(label, [
        "run",
        V8_FLAGS,
        "--unstable-net",
        "--allow-all",
        import.meta.filename!,
        "--serve",
        config.mode,
        String(port),
      ], { env, cwd: root, port }));
    }
    for (const server of servers) await waitUntilReady(server, "/ready");
    await wrkRate(`${ceiling.url}/hello`, script, 2); // warm-up
    await wrkRate(`${servers[0]!.url}/hello`, script, 2);
    const list: number[] = [];
    for (let r = 1; r <= rounds; r++) {
      const c = await wrkRate(`${ceiling.url}/hello`, script, seconds);
      const h = await wrkRate(`${servers[0]!.url}/hello`, script, seconds);
      list.push(h / c);
      console.log(
        `${label.padEnd(10)} round ${r}: ceiling ${c.toFixed(0)}  hello ${h.toFixed(0)} req/s  ` +
          `ratio ${(h / c).toFixed(3)}`,
      );
    }
    ratios.set(label, list);
    for (const server of servers) await stop(server);
  }
  await stop(ceiling);
  console.log("\nmedian hello / ceiling (target of bench/soap_bench.ts: 0.45)");
  for (const [label, list] of ratios) {
    const sorted = [...list].sort((a, b) => a - b);
    const median = sorted[Math.floor(sorted.length / 2)]!;
    console.log(
      `${label.padEnd(10)} ${median.toFixed(3)} (rounds ${sorted[0]!.toFixed(3)}-${
        sorted.at(-1)!.toFixed(3)
      })`,
    );
  }
  return true;
}

if (import.meta.main) {
  const at = Deno.args.indexOf("--serve");
  if (at >= 0) serve(Deno.args[at + 1] as Mode, Number(Deno.args[at + 2]));
  else await runMain(run);
}
