/**
 * The allowed upload types: the extension decides the type, and the first bytes must agree
 * with it. Everything else is refused (415).
 */

interface FileType {
  contentType: string;
  matches(head: Uint8Array): boolean;
}

const startsWith = (...signatures: number[][]) => (head: Uint8Array) =>
  signatures.some((sig) => sig.every((byte, i) => head[i] === byte));

const ascii = (text: string) => [...text].map((c) => c.charCodeAt(0));

/** Text must be UTF-8 (a sequence cut at the end of the sample is fine) without NUL bytes. */
function isText(head: Uint8Array): boolean {
  if (head.includes(0)) return false;
  let end = head.length;
  // Drop an incomplete multi-byte sequence at the cut.
  for (let back = 1; back <= 3 && end - back >= 0; back++) {
    const byte = head[end - back]!;
    if ((byte & 0xc0) === 0x80) continue;
    if (byte >= 0xc0) {
      const need = byte >= 0xf0 ? 4 : byte >= 0xe0 ? 3 : 2;
      if (back < need) end -= back;
    }
    break;
  }
  try {
    new TextDecoder("utf-8", { fatal: true }).decode(head.subarray(0, end));
    return true;
  } catch {
    return false;
  }
}

const ZIP = startsWith([0x50, 0x4b, 0x03, 0x04], [0x50, 0x4b, 0x05, 0x06]);

const TYPES: Record<string, FileType> = {
  png: {
    contentType: "image/png",
    matches: startsWith([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
  },
  jpg: { contentType: "image/jpeg", matches: startsWith([0xff, 0xd8, 0xff]) },
  jpeg: { contentType: "image/jpeg", matches: startsWith([0xff, 0xd8, 0xff]) },
  gif: { contentType: "image/gif", matches: startsWith(ascii("GIF87a"), ascii("GIF89a")) },
  webp: {
    contentType: "image/webp",
    matches: (h) => startsWith(ascii("RIFF"))(h) && startsWith(ascii("WEBP"))(h.subarray(8)),
  },
  pdf: { contentType: "application/pdf", matches: startsWith(ascii("%PDF-")) },
  txt: { contentType: "text/plain; charset=utf-8", matches: isText },
  md: { contentType: "text/markdown; charset=utf-8", matches: isText },
  csv: { contentType: "text/csv; charset=utf-8", matches: isText },
  json: { contentType: "application/json", matches: isText },
  zip: { contentType: "application/zip", matches: ZIP },
  docx: {
    contentType: "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
    matches: ZIP,
  },
  xlsx: {
    contentType: "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
    matches: ZIP,
  },
  pptx: {
    contentType: "application/vnd.openxmlformats-officedocument.presentationml.presentation",
    matches: ZIP,
  },
};

/** The lower-case extension of a file name ("" when none). */
export function extensionOf(name: string): string {
  const dot = name.lastIndexOf(".");
  return dot > 0 ? name.slice(dot + 1).toLowerCase() : "";
}

/** The type of an allowed extension, or null. */
export function allowedType(name: string): { ext: string; contentType: string } | null {
  const ext = extensionOf(name);
  const type = TYPES[ext];
  return type ? { ext, contentType: type.contentType } : null;
}

/** Whether the first bytes agree with the extension's type (an empty text file does). */
export function headMatches(ext: string, head: Uint8Array): boolean {
  return TYPES[ext]?.matches(head) ?? false;
}

/** The image types a page may show inline, each known by its first bytes alone. */
const IMAGES = ["png", "jpg", "gif", "webp"] as const;

/** How many first bytes `sniffImage` needs. */
export const IMAGE_HEAD_BYTES = 12;

/**
 * The image type that the first bytes say (PNG, JPEG, GIF or WebP), or null. The name and any
 * declared type are ignored: only bytes that really begin an image of these kinds qualify.
 */
export function sniffImage(head: Uint8Array): string | null {
  const ext = IMAGES.find((e) => TYPES[e]!.matches(head));
  return ext ? TYPES[ext]!.contentType : null;
}

/** Whether a stored content type is one that `sniffImage` can confirm (a preview is offered). */
export function isPreviewType(contentType: string): boolean {
  return IMAGES.some((e) => TYPES[e]!.contentType === contentType);
}
