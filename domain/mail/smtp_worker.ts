/**
 * The worker a `WorkerTransport` starts: it runs `smtpTransport` on its own thread and answers
 * each `send` with the attempt's outcome (see `smtp_transport.ts`).
 */
import { lowerThisThreadPriority } from "../kernel/thread_priority.ts";
import {
  type MailTransport,
  sendFailure,
  smtpTransport,
  type SmtpWorkerReply,
  type SmtpWorkerRequest,
} from "./smtp_transport.ts";

const scope = globalThis as unknown as {
  onmessage: ((event: MessageEvent<SmtpWorkerRequest>) => void) | null;
  postMessage(message: SmtpWorkerReply): void;
  close(): void;
};

let transport: MailTransport | null = null;

// Mail waits; requests do not: this thread gives the core to the requests' one when both want it.
lowerThisThreadPriority();

scope.onmessage = ({ data }) => {
  if (data.type === "setup") {
    transport = smtpTransport(data.smtp, data.options);
  } else if (data.type === "close") {
    transport?.close();
    transport = null;
    // Let the connections' QUIT go out, then end.
    setTimeout(() => scope.close(), 100);
  } else if (transport) {
    const { id } = data;
    transport.send(data.mail).then(
      () => scope.postMessage({ id, failure: null }),
      (error) => scope.postMessage({ id, failure: sendFailure(error) }),
    );
  } else {
    scope.postMessage({ id: data.id, failure: { message: "the mail worker is not set up" } });
  }
};
