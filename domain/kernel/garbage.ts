/**
 * Freeing the buffers a long stream has handed on. A response body's pieces are new buffers the
 * runtime holds until they are sent; once sent they are garbage that V8 frees only when a
 * collection comes, and for buffers of a few hundred KiB that comes late: the count of objects
 * brings on a young-generation collection, their bytes barely do (V8 waits for about 64 MiB of
 * them). So a stream that sends many large pieces asks for a young collection every few MiB:
 * it costs well under a millisecond (nothing else of the stream survives), and the garbage
 * stays at a few MiB instead of tens (docs/decisions/0007-export-file-pieces.md).
 *
 * `gc` is there only when V8 runs with `--expose-gc`, as the `start` and `compile` tasks run
 * it; without it nothing is collected early and memory is what it would otherwise be.
 */

type Collect = () => void;

/** `gc` as `--expose-gc` gives it, asked for a young-generation (minor) collection. */
function exposedCollect(): Collect | null {
  const gc = (globalThis as { gc?: (options?: { type?: string }) => unknown }).gc;
  return typeof gc === "function" ? () => void gc({ type: "minor" }) : null;
}

/** A young-generation collection now, when the runtime offers one; else nothing. */
export const collectYoungGarbage: Collect = exposedCollect() ?? (() => {});

/**
 * Counts the bytes handed on and calls `collect` each time another `everyBytes` of them has
 * gone; returns the counting function.
 */
export function garbagePacer(
  everyBytes: number,
  collect: Collect = collectYoungGarbage,
): (bytes: number) => void {
  let since = 0;
  return (bytes) => {
    since += bytes;
    if (since < everyBytes) return;
    since = 0;
    collect();
  };
}
