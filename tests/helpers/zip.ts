/**
 * Test helpers for zip archives: reading one whole (through zip.js), and building one byte by
 * byte, so that tests can make the damaged and hostile archives no zip library would write.
 */
import { Uint8ArrayReader, Uint8ArrayWriter, ZipReader } from "@zip.js/zip.js";

/** Every entry of an archive: name to bytes (directories left out). */
export async function readZip(bytes: Uint8Array): Promise<Map<string, Uint8Array>> {
  const reader = new ZipReader(new Uint8ArrayReader(bytes), { useWebWorkers: false });
  const entries = new Map<string, Uint8Array>();
  try {
    for (const entry of await reader.getEntries()) {
      if (entry.directory) continue;
      entries.set(
        entry.filename,
        await entry.getData(new Uint8ArrayWriter(), { checkSignature: true }),
      );
    }
  } finally {
    await reader.close();
  }
  return entries;
}

/** One entry of a hand-built archive. */
export interface RawEntry {
  name: string;
  data?: Uint8Array | string;
  /** Deflate the data (else stored). */
  deflate?: boolean;
  /** The uncompressed size the headers declare (default: the true one). */
  declaredSize?: number;
  /** The CRC-32 the headers declare (default: the true one). */
  crc?: number;
  /** Unix mode (file type and permissions) in the external attributes, made by Unix. */
  unixMode?: number;
}

const CRC_TABLE = (() => {
  const table = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    table[n] = c >>> 0;
  }
  return table;
})();

/** The CRC-32 of `data`. */
export function crc32(data: Uint8Array): number {
  let c = 0xffffffff;
  for (const byte of data) c = CRC_TABLE[(c ^ byte) & 0xff]! ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

async function deflateRaw(data: Uint8Array): Promise<Uint8Array> {
  const stream = new Blob([data as BlobPart]).stream().pipeThrough(
    new CompressionStream("deflate-raw"),
  );
  return new Uint8Array(await new Response(stream).arrayBuffer());
}

/** Builds a zip archive from `entries`, exactly as described (no checks). */
export async function buildZip(entries: RawEntry[]): Promise<Uint8Array> {
  const encoder = new TextEncoder();
  const locals: Uint8Array[] = [];
  const centrals: Uint8Array[] = [];
  let offset = 0;
  for (const e of entries) {
    const data = typeof e.data === "string" ? encoder.encode(e.data) : e.data ?? new Uint8Array();
    const body = e.deflate ? await deflateRaw(data) : data;
    const name = encoder.encode(e.name);
    const crc = e.crc ?? crc32(data);
    const size = e.declaredSize ?? data.byteLength;
    const method = e.deflate ? 8 : 0;
    const local = new Uint8Array(30 + name.byteLength);
    const l = new DataView(local.buffer);
    l.setUint32(0, 0x04034b50, true);
    l.setUint16(4, 20, true);
    l.setUint16(6, 0x0800, true); // UTF-8 names
    l.setUint16(8, method, true);
    l.setUint32(14, crc, true);
    l.setUint32(18, body.byteLength, true);
    l.setUint32(22, size, true);
    l.setUint16(26, name.byteLength, true);
    local.set(name, 30);
    const central = new Uint8Array(46 + name.byteLength);
    const c = new DataView(central.buffer);
    c.setUint32(0, 0x02014b50, true);
    c.setUint16(4, e.unixMode === undefined ? 20 : (3 << 8) | 20, true);
    c.setUint16(6, 20, true);
    c.setUint16(8, 0x0800, true);
    c.setUint16(10, method, true);
    c.setUint32(16, crc, true);
    c.setUint32(20, body.byteLength, true);
    c.setUint32(24, size, true);
    c.setUint16(28, name.byteLength, true);
    c.setUint32(38, e.unixMode === undefined ? 0 : (e.unixMode << 16) >>> 0, true);
    c.setUint32(42, offset, true);
    central.set(name, 46);
    locals.push(local, body);
    centrals.push(central);
    offset += local.byteLength + body.byteLength;
  }
  const directorySize = centrals.reduce((n, c) => n + c.byteLength, 0);
  const end = new Uint8Array(22);
  const d = new DataView(end.buffer);
  d.setUint32(0, 0x06054b50, true);
  d.setUint16(8, entries.length, true);
  d.setUint16(10, entries.length, true);
  d.setUint32(12, directorySize, true);
  d.setUint32(16, offset, true);
  const parts = [...locals, ...centrals, end];
  const out = new Uint8Array(parts.reduce((n, p) => n + p.byteLength, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.byteLength;
  }
  return out;
}
