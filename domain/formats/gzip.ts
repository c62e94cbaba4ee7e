/**
 * A gzip stream (RFC 1952) written piece by piece, each piece either compressed or stored.
 * Photos, PDFs and office files are compressed already: deflating them again costs a backup
 * most of its time (measured here: zlib's level 1 reads random bytes at about 35 MB/s, a
 * stored block at several hundred) and gains nothing. One deflate stream holds both kinds of
 * blocks, so any gzip reader reads the result.
 */
import { constants, crc32, deflateRawSync } from "node:zlib";

/** The largest stored block (RFC 1951, 3.2.4). */
const MAX_STORED = 65535;
/** The gzip header: magic, deflate, no flags, no time, no extra flags, unknown OS. */
const HEADER = new Uint8Array([0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 255]);

/** Writes one gzip member; each method returns the bytes to append, in order. */
export class GzipWriter {
  #crc = 0;
  #size = 0;

  /** The gzip header, first. */
  start(): Uint8Array {
    return HEADER;
  }

  /**
   * `data` deflated at level 1 and flushed to a byte boundary (not the final block), or
   * stored when deflating did not make it smaller. `shrank` says whether it was deflated.
   */
  compress(data: Uint8Array): { bytes: Uint8Array[]; shrank: boolean } {
    if (data.length === 0) return { bytes: [], shrank: true };
    const deflated = deflateRawSync(data, {
      level: 1,
      finishFlush: constants.Z_SYNC_FLUSH,
    }) as Uint8Array;
    if (deflated.length >= data.length) return { bytes: this.store(data), shrank: false };
    this.#count(data);
    return { bytes: [deflated], shrank: deflated.length < data.length * 0.95 };
  }

  /** `data` in stored blocks (five bytes of framing per 64 KiB), as one piece. */
  store(data: Uint8Array): Uint8Array[] {
    const blocks = Math.ceil(data.length / MAX_STORED);
    const out = new Uint8Array(data.length + 5 * blocks);
    let at = 0;
    for (let offset = 0; offset < data.length; offset += MAX_STORED) {
      const n = Math.min(MAX_STORED, data.length - offset);
      // Not final, type 00 (stored); then LEN and its complement, little-endian.
      out.set([0, n & 0xff, n >> 8, ~n & 0xff, (~n >> 8) & 0xff], at);
      out.set(data.subarray(offset, offset + n), at + 5);
      at += 5 + n;
    }
    this.#count(data);
    return [out];
  }

  /** The final (empty, stored) block and the trailer: CRC-32 and size modulo 2^32. */
  finish(): Uint8Array {
    const end = new Uint8Array(13);
    end.set([1, 0, 0, 0xff, 0xff]);
    const view = new DataView(end.buffer);
    view.setUint32(5, this.#crc >>> 0, true);
    view.setUint32(9, this.#size >>> 0, true);
    return end;
  }

  #count(data: Uint8Array): void {
    this.#crc = crc32(data, this.#crc);
    this.#size = (this.#size + data.length) % 2 ** 32;
  }
}
