/**
 * Serving `static/`: read once at start from next to the code (so `deno compile
 * --include static` works), answered from memory with an ETag.
 */
import { Hono } from "hono";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";

/** The folder of static files. */
export const STATIC_DIR = join(import.meta.dirname ?? ".", "..", "static");

const TYPES: Record<string, string> = {
  css: "text/css; charset=utf-8",
  js: "text/javascript; charset=utf-8",
  svg: "image/svg+xml",
  png: "image/png",
  ico: "image/x-icon",
  txt: "text/plain; charset=utf-8",
};

interface StaticFile {
  body: Uint8Array<ArrayBuffer>;
  type: string;
  etag: string;
}

function load(dir: string): Map<string, StaticFile> {
  const files = new Map<string, StaticFile>();
  for (const name of readdirSync(dir)) {
    const type = TYPES[name.split(".").pop() ?? ""];
    if (!type) continue;
    const body = new Uint8Array(readFileSync(join(dir, name)));
    let hash = 2166136261;
    for (const byte of body) hash = Math.imul(hash ^ byte, 16777619);
    files.set(name, { body, type, etag: `"${(hash >>> 0).toString(16)}-${body.length}"` });
  }
  return files;
}

/** Serves `/static/<name>`. */
export function staticFiles(dir: string = STATIC_DIR) {
  const files = load(dir);
  const app = new Hono();
  app.get("/static/:name", (c) => {
    const file = files.get(c.req.param("name"));
    if (!file) return c.text("Not found", 404);
    c.header("etag", file.etag);
    c.header("cache-control", "public, max-age=300");
    if (c.req.header("if-none-match") === file.etag) return c.body(null, 304);
    return c.body(file.body, 200, { "content-type": file.type });
  });
  return app;
}
