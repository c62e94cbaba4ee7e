/**
 * Sending mail over SMTP: nodemailer's pooled transport over connections with Nagle's
 * algorithm off, and the same transport on a worker thread of its own (`WorkerTransport`), so
 * that building and writing each mail (about 3.5 ms of JavaScript, bench/mail_bench.ts) takes
 * nothing from the thread that answers requests.
 */
import net from "node:net";
import nodemailer from "nodemailer";
import type { SmtpConfig } from "../config.ts";

/** One mail as handed to the transport. */
export interface Envelope {
  from: string;
  to: string;
  subject: string;
  text: string;
  html: string;
  messageId: string;
  headers: Record<string, string>;
}

/** Sends one mail; rejects with the SMTP answer's code (`responseCode`) when there is one. */
export interface MailTransport {
  send(mail: Envelope): Promise<void>;
  close(): void;
}

/**
 * A TCP connection to the SMTP server with Nagle's algorithm off (`setNoDelay`), handed to
 * nodemailer (its `getSocket`), which upgrades it to TLS where it must. nodemailer's own
 * connection leaves Nagle on, and then each of its small commands waits for the server's
 * delayed acknowledgement: 48 ms a mail to a server on loopback, 5 ms with it off
 * (bench/mail_bench.ts). When this connection fails or times out, nothing is handed over and
 * nodemailer connects itself, so a server that is down fails the attempt as before, with
 * nodemailer's own error (its pool takes a failed `getSocket` for a connection still to come).
 */
function connectWithoutDelay(
  smtp: SmtpConfig,
  timeoutMs: number,
  callback: (error: Error | null, socket?: { connection: net.Socket }) => void,
): void {
  let settled = false;
  const settle = (socket: net.Socket | null) => {
    if (settled) return;
    settled = true;
    clearTimeout(timer);
    if (socket) {
      socket.removeListener("error", failed);
      callback(null, { connection: socket });
    } else callback(null);
  };
  const failed = () => settle(null);
  const socket = net.connect({ host: smtp.host, port: smtp.port });
  const timer = setTimeout(() => {
    socket.destroy();
    settle(null);
  }, timeoutMs);
  socket.once("error", failed);
  socket.once("connect", () => {
    socket.setNoDelay(true);
    socket.setKeepAlive(true);
    settle(socket);
  });
}

/** nodemailer's pooled SMTP transport: `connections` connections, kept open between mails. */
export function smtpTransport(
  smtp: SmtpConfig,
  options: SmtpTransportOptions = {},
): MailTransport {
  const connectionTimeoutMs = options.connectionTimeoutMs ?? 10_000;
  const transporter = nodemailer.createTransport({
    getSocket: (
      _options: unknown,
      callback: (error: Error | null, socket?: { connection: net.Socket }) => void,
    ) => connectWithoutDelay(smtp, connectionTimeoutMs, callback),
    pool: true,
    maxConnections: options.connections ?? 1,
    host: smtp.host,
    port: smtp.port,
    secure: smtp.secure,
    requireTLS: smtp.requireTls,
    ...(smtp.user !== null ? { auth: { user: smtp.user, pass: smtp.password ?? "" } } : {}),
    connectionTimeout: connectionTimeoutMs,
    greetingTimeout: options.greetingTimeoutMs ?? 10_000,
    socketTimeout: options.socketTimeoutMs ?? 30_000,
    ...(options.ca !== undefined ? { tls: { ca: options.ca } } : {}),
    disableFileAccess: true,
    disableUrlAccess: true,
  });
  return {
    async send(mail) {
      await transporter.sendMail({
        from: mail.from,
        to: mail.to,
        subject: mail.subject,
        text: mail.text,
        html: mail.html,
        messageId: mail.messageId,
        textEncoding: "base64",
        headers: { ...mail.headers, "Auto-Submitted": "auto-generated" },
      });
    },
    close: () => transporter.close(),
  };
}

/** The SMTP transport's tuning. */
export interface SmtpTransportOptions {
  /** Connections of the pool, each one mail at a time (default 1). */
  connections?: number;
  /** Connecting, the greeting, and silence on the socket (default 10, 10, 30 s). */
  connectionTimeoutMs?: number;
  greetingTimeoutMs?: number;
  socketTimeoutMs?: number;
  /** Certificates trusted besides the system's (tests: a throwaway self-signed one). */
  ca?: string;
}

/** What the sender reads of a failed attempt (an Error does not cross to another thread). */
export interface SendFailure {
  responseCode?: number;
  response?: string;
  message: string;
}

/** The parts of a transport's error that say what the failure means. */
export function sendFailure(error: unknown): SendFailure {
  const e = error as { responseCode?: unknown; response?: unknown; message?: unknown };
  return {
    ...(typeof e?.responseCode === "number" ? { responseCode: e.responseCode } : {}),
    ...(typeof e?.response === "string" ? { response: e.response } : {}),
    message: typeof e?.message === "string" ? e.message : String(error),
  };
}

/** A message to the SMTP worker. */
export type SmtpWorkerRequest =
  | { type: "setup"; smtp: SmtpConfig; options: SmtpTransportOptions }
  | { type: "send"; id: number; mail: Envelope }
  | { type: "close" };

/** The SMTP worker's answer to a `send`: null when the server took the mail. */
export interface SmtpWorkerReply {
  id: number;
  failure: SendFailure | null;
}

/**
 * `smtpTransport` on a worker thread of its own (`smtp_worker.ts`, started with the transport,
 * so the thread's memory is there from the start rather than growing at the first mail).
 * An attempt whose worker fails fails like a dropped connection (retried later); the next
 * mail starts a new worker.
 */
export class WorkerTransport implements MailTransport {
  readonly #setup: SmtpWorkerRequest;
  readonly #pending = new Map<
    number,
    { resolve: () => void; reject: (failure: SendFailure) => void }
  >();
  #worker: Worker | null = null;
  #next = 1;

  constructor(smtp: SmtpConfig, options: SmtpTransportOptions = {}) {
    this.#setup = { type: "setup", smtp, options };
    this.#start();
  }

  send(mail: Envelope): Promise<void> {
    const id = this.#next++;
    const worker = this.#start();
    return new Promise((resolve, reject) => {
      this.#pending.set(id, { resolve, reject });
      worker.postMessage({ type: "send", id, mail } satisfies SmtpWorkerRequest);
    });
  }

  close(): void {
    const worker = this.#worker;
    this.#worker = null;
    this.#failAll("the mail worker was stopped");
    if (!worker) return;
    // The worker closes its connections (QUIT), then ends; one that does not is ended.
    worker.postMessage({ type: "close" } satisfies SmtpWorkerRequest);
    const timer = setTimeout(() => worker.terminate(), 1_000);
    Deno.unrefTimer(timer);
  }

  #start(): Worker {
    if (this.#worker) return this.#worker;
    const worker = new Worker(new URL("./smtp_worker.ts", import.meta.url).href, {
      type: "module",
    });
    worker.onmessage = ({ data }: MessageEvent<SmtpWorkerReply>) => {
      const waiting = this.#pending.get(data.id);
      this.#pending.delete(data.id);
      if (data.failure === null) waiting?.resolve();
      else waiting?.reject(data.failure);
    };
    worker.onerror = (event) => {
      event.preventDefault();
      if (this.#worker === worker) this.#worker = null;
      worker.terminate();
      this.#failAll(`the mail worker failed: ${event.message}`);
    };
    worker.postMessage(this.#setup);
    this.#worker = worker;
    return worker;
  }

  #failAll(message: string): void {
    const waiting = [...this.#pending.values()];
    this.#pending.clear();
    for (const { reject } of waiting) reject({ message });
  }
}
