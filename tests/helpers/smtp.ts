/**
 * A real SMTP server for tests (npm smtp-server) on 127.0.0.1 and a free port, keeping every
 * mail it accepted, parsed (npm mailparser). A test decides each answer (`refuse`), and may
 * offer STARTTLS with a throwaway self-signed certificate (`tlsCertificate`).
 */
// @ts-types="@types/smtp-server"
import { SMTPServer, type SMTPServerOptions } from "smtp-server";
// @ts-types="@types/mailparser"
import { type ParsedMail, simpleParser } from "mailparser";

/** A mail the server accepted. */
export interface Received {
  parsed: ParsedMail;
  raw: string;
  /** Whether the session had been upgraded to TLS when the mail came. */
  secure: boolean;
  rcptTo: string[];
}

/** A running test SMTP server. */
export interface TestSmtp {
  port: number;
  url: string;
  received: Received[];
  /** Answers to DATA: null accepts, `{ code, message }` refuses with that SMTP reply. */
  refuse: (() => { code: number; message: string } | null) | null;
  /** DATA commands answered (accepted or refused). */
  attempts: number;
  /** While true, a mail's DATA gets no answer at all (a server that hangs mid-attempt). */
  hold: boolean;
  /** DATA commands received while `hold` was on (never answered). */
  held: number;
  close(): Promise<void>;
}

/** A throwaway self-signed certificate for 127.0.0.1, made with Debian's openssl. */
export async function tlsCertificate(): Promise<{ key: string; cert: string }> {
  const dir = await Deno.makeTempDir({ prefix: "smtp-cert-" });
  try {
    const out = await new Deno.Command("openssl", {
      args: [
        "req",
        "-x509",
        "-newkey",
        "rsa:2048",
        "-nodes",
        "-keyout",
        `${dir}/key.pem`,
        "-out",
        `${dir}/cert.pem`,
        "-days",
        "1",
        "-subj",
        "/CN=127.0.0.1",
        "-addext",
        "subjectAltName=IP:127.0.0.1",
      ],
      stdout: "null",
      stderr: "piped",
    }).output();
    if (!out.success) throw new Error(new TextDecoder().decode(out.stderr));
    return {
      key: await Deno.readTextFile(`${dir}/key.pem`),
      cert: await Deno.readTextFile(`${dir}/cert.pem`),
    };
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

/** Starts a server; `tls` offers STARTTLS with that certificate (else STARTTLS is off). */
export async function startSmtp(
  options: { tls?: { key: string; cert: string }; port?: number } = {},
): Promise<TestSmtp> {
  const state: TestSmtp = {
    port: 0,
    url: "",
    received: [],
    refuse: null,
    attempts: 0,
    hold: false,
    held: 0,
    close: () => Promise.resolve(),
  };
  const serverOptions: SMTPServerOptions = {
    authOptional: true,
    logger: false,
    ...(options.tls
      ? { key: options.tls.key, cert: options.tls.cert }
      : { disabledCommands: ["STARTTLS"] }),
    onData(stream, session, callback) {
      const chunks: Uint8Array[] = [];
      stream.on("data", (c: Uint8Array) => chunks.push(c));
      stream.on("end", async () => {
        if (state.hold) {
          state.held++;
          return;
        }
        state.attempts++;
        const refusal = state.refuse?.() ?? null;
        if (refusal) {
          const error = new Error(refusal.message) as Error & { responseCode: number };
          error.responseCode = refusal.code;
          return callback(error);
        }
        const raw = new TextDecoder().decode(
          chunks.reduce((a, b) => {
            const all = new Uint8Array(a.length + b.length);
            all.set(a);
            all.set(b, a.length);
            return all;
          }, new Uint8Array()),
        );
        state.received.push({
          parsed: await simpleParser(raw),
          raw,
          secure: session.secure,
          rcptTo: session.envelope.rcptTo.map((r) => r.address),
        });
        callback();
      });
    },
  };
  const server = new SMTPServer(serverOptions);
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port ?? 0, "127.0.0.1", () => resolve());
  });
  // A client that refuses the certificate ends its session: the server goes on.
  server.on("error", () => {});
  const address = server.server.address();
  state.port = typeof address === "object" && address ? address.port : 0;
  state.url = `smtp://127.0.0.1:${state.port}`;
  state.close = () => new Promise<void>((resolve) => server.close(() => resolve()));
  return state;
}

/** A port nothing listens on now (taken and let go). */
export function freePort(): number {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (listener.addr as Deno.NetAddr).port;
  listener.close();
  return port;
}
