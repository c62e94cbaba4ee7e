/**
 * The worker a `WorkerPoster` starts: it runs a `WebhookPoster` on its own thread and
 * answers each `post` with the attempt's outcome (see `webhook_poster.ts`).
 */
import { lowerThisThreadPriority } from "../kernel/thread_priority.ts";
import {
  posterFromSetup,
  type PosterWorkerReply,
  type PosterWorkerRequest,
  type PosterWorkerSetup,
  type WebhookPoster,
} from "./webhook_poster.ts";

const scope = globalThis as unknown as {
  onmessage: ((event: MessageEvent<PosterWorkerSetup | PosterWorkerRequest>) => void) | null;
  postMessage(message: PosterWorkerReply): void;
};

let poster: WebhookPoster | null = null;

// Deliveries wait; requests do not: this thread gives the core to the requests' one.
lowerThisThreadPriority();

scope.onmessage = ({ data }) => {
  if (data.type === "setup") {
    poster = posterFromSetup(data);
  } else if (data.type === "abort") {
    poster?.abortAll();
  } else if (poster) {
    const { id } = data;
    void poster.post(data.job).then((outcome) => scope.postMessage({ id, outcome }));
  } else {
    scope.postMessage({ id: data.id, outcome: { kind: "abandoned" } });
  }
};
