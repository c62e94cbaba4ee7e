/**
 * Holds responses to the OpenAPI document: each `/api` (and calendar-feed) response a test
 * receives must be an operation and status the document lists, in a media type it lists,
 * with the headers it marks required, and a JSON body its schema accepts (ajv, JSON Schema
 * 2020-12 as OpenAPI 3.1 uses, with formats). The document's schemas are compiled once per
 * process, each response schema on first use.
 */
import { Ajv2020, type ValidateFunction } from "ajv/dist/2020.js";
import formats from "ajv-formats";

// A CommonJS module whose `module.exports` is the plugin and also carries it as `default`:
// the type checker sees only the latter.
const addFormats = formats.default;

/** What a check needs to know of one exchange. */
export interface Exchange {
  method: string;
  /** The request URL's path. */
  path: string;
  status: number;
  headers: Headers;
  /** The body text (read only for JSON answers), or null when it was not read. */
  body: string | null;
}

// deno-lint-ignore no-explicit-any
type Json = any;

const BASE = "https://collab.test/openapi.json";
/** Statuses that are not answers: a client that went away mid-request (never sent). */
const NOT_ANSWERS = new Set([499]);

/** One path template and how to match it. */
interface Template {
  path: string;
  pattern: RegExp;
  /** Characters outside parameters: the most literal template wins (`/meetings/check`). */
  literal: number;
}

/** Whether a request path is one the document describes. */
export function isDocumentedArea(path: string): boolean {
  return path.startsWith("/api/") || path.startsWith("/ics/");
}

/** Makes every `#/…` reference absolute against the document, so a fragment compiles alone. */
function absolute(schema: Json): Json {
  if (Array.isArray(schema)) return schema.map(absolute);
  if (schema === null || typeof schema !== "object") return schema;
  const out: Json = {};
  for (const [key, value] of Object.entries(schema)) {
    out[key] = key === "$ref" && typeof value === "string" && value.startsWith("#")
      ? `${BASE}${value}`
      : absolute(value);
  }
  return out;
}

/** Whether a documented media range (`*\/*`, `text/*`, `text/calendar`) covers `type`. */
function covers(range: string, type: string): boolean {
  if (range === "*/*") return true;
  if (range.endsWith("/*")) return type.startsWith(range.slice(0, -1));
  return range === type;
}

/** Checks exchanges against one OpenAPI document. */
export class OpenApiValidator {
  readonly document: Json;
  readonly #ajv: InstanceType<typeof Ajv2020>;
  readonly #templates: Template[];
  readonly #compiled = new Map<string, ValidateFunction>();

  constructor(document: Json) {
    this.document = document;
    // Not strict: OpenAPI adds keywords JSON Schema does not know (`example`, ...).
    this.#ajv = new Ajv2020({ strict: false, allErrors: true, logger: false });
    addFormats(this.#ajv);
    this.#ajv.addFormat("binary", true);
    this.#ajv.addSchema({ $id: BASE, components: absolute(document.components ?? {}) });
    this.#templates = Object.keys(document.paths ?? {}).map((path) => {
      const parts = path.split(/(\{[^}]+\})/);
      const source = parts.map((part) =>
        part.startsWith("{") ? "([^/]+)" : part.replace(/[.*+?^$()|[\]\\]/g, "\\$&")
      ).join("");
      const literal = parts.filter((p) => !p.startsWith("{")).join("").length;
      return { path, pattern: new RegExp(`^${source}$`), literal };
    });
  }

  /** The path template of `path`, or null when none matches. */
  template(path: string): string | null {
    let best: Template | null = null;
    for (const t of this.#templates) {
      if (t.pattern.test(path) && (!best || t.literal > best.literal)) best = t;
    }
    return best?.path ?? null;
  }

  /** The problems of one exchange (none when it agrees with the document). */
  check(x: Exchange): string[] {
    if (!isDocumentedArea(x.path) || NOT_ANSWERS.has(x.status)) return [];
    const where = `${x.method} ${x.path} → ${x.status}`;
    const template = this.template(x.path);
    const method = x.method === "HEAD" ? "get" : x.method.toLowerCase();
    const operation = template ? this.document.paths[template][method] : undefined;
    if (!operation) {
      // No such operation: only a refusal may answer (401, 403 cross-site, 404, 405).
      if (x.status < 400) return [`${where}: no operation in the document`];
      return this.#checkBody(where, "#/components/schemas/Error", x);
    }
    const response = this.#resolve(operation.responses?.[String(x.status)]);
    if (!response) {
      return [`${where}: status ${x.status} is not documented for ${operation.operationId}`];
    }
    const problems: string[] = [];
    for (const [name, spec] of Object.entries(response.headers ?? {})) {
      const header = this.#resolve(spec);
      if (header?.required && !x.headers.has(name)) {
        problems.push(`${where}: the required header ${name} is missing`);
      }
    }
    const type = (x.headers.get("content-type") ?? "").split(";")[0]!.trim().toLowerCase();
    const content: Record<string, Json> = response.content ?? {};
    if (Object.keys(content).length === 0) {
      if (x.body) problems.push(`${where}: a body where the document gives none`);
      return problems;
    }
    if (x.method === "HEAD" || x.status === 304) return problems;
    const range = Object.keys(content).find((r) => covers(r, type));
    if (range === undefined) {
      problems.push(`${where}: content type "${type}" is not one of ${Object.keys(content)}`);
      return problems;
    }
    if (type.includes("json") && x.body !== null) {
      const pointer = `#/paths/${escape(template!)}/${method}/responses/${x.status}/content/${
        escape(range)
      }/schema`;
      problems.push(...this.#checkBody(where, pointer, x, content[range].schema));
    }
    return problems;
  }

  /** The problems of `value` against the component schema `name` (none when it agrees). */
  checkComponent(name: string, value: unknown): string[] {
    const body = JSON.stringify(value);
    const headers = new Headers({ "content-type": "application/json" });
    const x = { method: "-", path: name, status: 200, headers, body } as Exchange;
    return this.#checkBody(name, `#/components/schemas/${name}`, x);
  }

  #checkBody(where: string, pointer: string, x: Exchange, schema?: Json): string[] {
    const type = x.headers.get("content-type") ?? "";
    if (!type.includes("json") || !x.body) return [];
    let validate = this.#compiled.get(pointer);
    if (!validate) {
      validate = this.#ajv.compile(absolute(schema ?? { $ref: pointer }));
      this.#compiled.set(pointer, validate);
    }
    let body: unknown;
    try {
      body = JSON.parse(x.body);
    } catch {
      return [`${where}: the JSON body does not parse`];
    }
    if (validate(body)) return [];
    const errors = (validate.errors ?? []).slice(0, 5).map((e) =>
      `${e.instancePath || "(body)"} ${e.message}${e.params ? ` ${JSON.stringify(e.params)}` : ""}`
    );
    return [`${where}: the body disagrees with the document: ${errors.join("; ")}`];
  }

  /** An object, or the component a `$ref` names. */
  #resolve(value: Json): Json {
    let at = value;
    while (at && typeof at.$ref === "string") {
      at = at.$ref.slice(2).split("/").reduce(
        (node: Json, key: string) => node?.[key.replaceAll("~1", "/").replaceAll("~0", "~")],
        this.document,
      );
    }
    return at;
  }
}

/** One JSON Pointer segment (RFC 6901) inside a URI fragment. */
function escape(segment: string): string {
  return encodeURIComponent(segment.replaceAll("~", "~0").replaceAll("/", "~1"));
}

let shared: Promise<OpenApiValidator> | null = null;

/** The process's validator, built from the document `load` returns (called once). */
export function sharedValidator(load: () => Promise<Json>): Promise<OpenApiValidator> {
  shared ??= load().then((document) => new OpenApiValidator(document));
  return shared;
}
