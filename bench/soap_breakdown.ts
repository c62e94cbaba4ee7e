/**
 * Where a `getHelloWorld` request's time goes (`deno run --allow-all bench/soap_breakdown.ts`).
 *
 * One server process serves `POST /hello` with a stack of handlers, each doing one step more
 * than the one before (from a bare `Deno.serve` to the path `main.ts` serves), and switches
 * from one to the next every 200 ms while `wrk` drives it. It counts the requests and the
 * CPU time of the process in each handler's slots, so every step is measured under the same
 * load and the same drift of the machine: the differences between the steps are what each
 * step costs per request. (Separate runs of separate servers differ by more than most steps
 * cost on a shared machine.)
 *
 * Environment: BENCH_SECONDS (20: measured seconds), BENCH_CONNECTIONS (64),
 * BENCH_THREADS (2). Needs `wrk` on PATH. The server runs with the V8 flags of
 * `deno task start`.
 */
import process from "node:process";
import { join } from "node:path";
import { SaxesParser } from "saxes";
import { requestLog, stdoutLog } from "../routes/middleware/request_log.ts";
import { soapFastPath } from "../routes/soap_fast_path.ts";
import type { LoanService } from "../domain/loan/loan.ts";
import { soapEndpoints } from "../soap/endpoint.ts";
import { parseXml } from "../soap/xml.ts";
import { startTaskArgs } from "./harness.ts";

const NS = "http://soap.example.com/";
const ENVELOPE = '<soapenv:Envelope xmlns:soapenv="http://schemas.xmlsoap.org/soap/envelope/" ' +
  `xmlns:soap="${NS}"><soapenv:Header/><soapenv:Body><soap:getHelloWorld>` +
  "<arg0>Alice</arg0></soap:getHelloWorld></soapenv:Body></soapenv:Envelope>";
const RESPONSE = "<?xml version='1.0' encoding='UTF-8'?><S:Envelope " +
  'xmlns:S="http://schemas.xmlsoap.org/soap/envelope/"><S:Body><ns2:getHelloWorldResponse ' +
  `xmlns:ns2="${NS}"><return>Hello World, Alice!</return>` +
  "</ns2:getHelloWorldResponse></S:Body></S:Envelope>";
const SLOT_MS = 200;
const WARMUP_MS = 3000;

type Handler = (request: Request) => Response | Promise<Response>;

/** The steps, each doing what the previous one does and one thing more. */
function steps(): Array<[string, Handler]> {
  const utf8 = new TextDecoder("utf-8", { fatal: true });
  const saxes = new SaxesParser({ xmlns: true, position: false });
  const headers = (request: Request) => {
    request.headers.get("content-type");
    request.headers.get("content-length");
    request.headers.get("transfer-encoding");
  };
  // getHelloWorld needs no loan service.
  const soap = soapEndpoints({} as LoanService, { namespace: NS, baseUrl: null });
  const fallback = () => new Response(null, { status: 404 });
  return [
    ["Deno.serve, fixed response (the ceiling)", () => new Response(RESPONSE)],
    ["+ read the body (request.bytes())", async (request) => {
      await request.bytes();
      return new Response(RESPONSE);
    }],
    ["+ read 3 request headers", async (request) => {
      headers(request);
      await request.bytes();
      return new Response(RESPONSE);
    }],
    ["+ strict UTF-8 decoding", async (request) => {
      headers(request);
      utf8.decode(await request.bytes());
      return new Response(RESPONSE);
    }],
    ["+ saxes (namespace-aware, no handlers)", async (request) => {
      headers(request);
      saxes.write(utf8.decode(await request.bytes())).close();
      return new Response(RESPONSE);
    }],
    ["+ parseXml (quick reader or saxes, tree)", async (request) => {
      headers(request);
      parseXml(utf8.decode(await request.bytes()));
      return new Response(RESPONSE);
    }],
    ["SOAP endpoint (+ dispatch, greet, encode)", soap.hello],
    [
      "+ security headers, log line built",
      soapFastPath(fallback, { ...soap, log: requestLog("text", () => {}), hsts: false }),
    ],
    [
      "+ log line written (as main.ts serves)",
      soapFastPath(fallback, { ...soap, log: requestLog("text", stdoutLog().write), hsts: false }),
    ],
  ];
}

interface Stat {
  requests: number;
  cpuMicros: number;
}

/** Server mode: rotates the steps and prints their stats (JSON, to stderr) on SIGTERM. */
function serve(port: number): void {
  const list = steps();
  const stats: Stat[] = list.map(() => ({ requests: 0, cpuMicros: 0 }));
  let current = 0;
  let counting = false;
  let last = process.cpuUsage();
  setTimeout(() => {
    counting = true;
    last = process.cpuUsage();
  }, WARMUP_MS);
  setInterval(() => {
    const now = process.cpuUsage();
    if (counting) stats[current]!.cpuMicros += now.user - last.user + now.system - last.system;
    last = now;
    current = (current + 1) % list.length;
  }, SLOT_MS);
  Deno.addSignalListener("SIGTERM", () => {
    console.error(JSON.stringify(list.map(([name], i) => ({ name, ...stats[i]! }))));
    Deno.exit(0);
  });
  Deno.serve({
    port,
    hostname: "127.0.0.1",
    onListen: () => console.error("ready"),
  }, (request) => {
    if (counting) stats[current]!.requests++;
    return list[current]![1](request);
  });
}

async function drive(): Promise<number> {
  const env = (name: string, fallback: number) => Number(Deno.env.get(name) ?? fallback);
  const seconds = env("BENCH_SECONDS", 20);
  const root = join(import.meta.dirname!, "..");
  const startArgs = startTaskArgs(await Deno.readTextFile(join(root, "deno.json")), root);
  const v8Flags = startArgs.filter((arg) => arg.startsWith("--v8-flags"));
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (listener.addr as Deno.NetAddr).port;
  listener.close();
  const temp = await Deno.makeTempDir({ prefix: "soap-breakdown-" });
  const server = new Deno.Command(Deno.execPath(), {
    args: ["run", ...v8Flags, "--allow-all", import.meta.filename!, "--serve", String(port)],
    cwd: root,
    stdin: "null",
    stdout: "null", // the request log
    stderr: "piped",
  }).spawn();
  try {
    const script = join(temp, "hello.lua");
    await Deno.writeTextFile(
      script,
      `wrk.method = "POST"\nwrk.body = [==[${ENVELOPE}]==]\n` +
        `wrk.headers["Content-Type"] = "text/xml; charset=utf-8"\nwrk.headers["SOAPAction"] = '""'\n`,
    );
    const lines = server.stderr.pipeThrough(new TextDecoderStream()).getReader();
    let output = "";
    while (!output.includes("ready")) {
      const { done, value } = await lines.read();
      if (done) throw new Error(`the server did not start:\n${output}`);
      output += value;
    }
    const wrk = await new Deno.Command("wrk", {
      args: [
        `-t${env("BENCH_THREADS", 2)}`,
        `-c${env("BENCH_CONNECTIONS", 64)}`,
        `-d${seconds + WARMUP_MS / 1000}s`,
        "-s",
        script,
        `http://127.0.0.1:${port}/hello`,
      ],
      stdout: "piped",
      stderr: "piped",
    }).output();
    if (!wrk.success) throw new Error(new TextDecoder().decode(wrk.stderr));
    server.kill("SIGTERM");
    output = "";
    while (true) {
      const { done, value } = await lines.read();
      if (done) break;
      output += value;
    }
    await server.status;
    const stats = JSON.parse(output.trim().split("\n").at(-1)!) as Array<Stat & { name: string }>;
    console.log(
      `one server (${v8Flags.join(" ") || "no --v8-flags"}), steps switched every ${SLOT_MS} ms, ` +
        `${seconds}s measured, wrk -t${env("BENCH_THREADS", 2)} -c${env("BENCH_CONNECTIONS", 64)}`,
    );
    console.log(`${"step".padEnd(42)} ${"CPU/request".padStart(12)} ${"step cost".padStart(10)}`);
    let previous: number | undefined;
    for (const s of stats) {
      const us = s.cpuMicros / s.requests;
      const delta = previous === undefined
        ? ""
        : `${us - previous >= 0 ? "+" : ""}${(us - previous).toFixed(1)}`;
      console.log(
        `${s.name.padEnd(42)} ${`${us.toFixed(1)} µs`.padStart(12)} ${delta.padStart(10)}`,
      );
      previous = us;
    }
    return 0;
  } finally {
    try {
      server.kill("SIGKILL");
    } catch { /* already gone */ }
    await server.status.catch(() => {});
    await Deno.remove(temp, { recursive: true });
  }
}

if (import.meta.main) {
  const at = Deno.args.indexOf("--serve");
  if (at >= 0) serve(Number(Deno.args[at + 1]));
  else Deno.exit(await drive());
}
