/**
 * Background threads step aside for the requests' thread. On Linux a thread's nice value is
 * its own (`setpriority` with `PRIO_PROCESS` and 0 names the calling thread), so a worker that
 * sends mail or webhook deliveries lowers its own priority and the scheduler gives the
 * requests' thread the core first whenever both want it: on a small host, a backlog of mail
 * then costs the requests' latency little (bench/README.md, "Mail"). Lowering one's own
 * priority needs no privilege (`--allow-sys` in Deno).
 */
import { setPriority } from "node:os";

/** The nice value of background threads: the scheduler's weight of 110 against 1024 at 0. */
export const BACKGROUND_NICE = 10;

/**
 * Lowers the calling thread's priority to `BACKGROUND_NICE`; whether it did. Only on Linux:
 * elsewhere the call would lower the whole process, requests included.
 */
export function lowerThisThreadPriority(): boolean {
  if (Deno.build.os !== "linux") return false;
  try {
    setPriority(0, BACKGROUND_NICE);
    return true;
  } catch {
    // Not allowed here (no `--allow-sys`, a sandbox): the thread runs at the usual priority.
    return false;
  }
}
