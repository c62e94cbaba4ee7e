/** Export of a project as a zip archive, and import of such an archive as a new project. */
import { requestMeta } from "../client_address.ts";
import { createRoute, z } from "@hono/zod-openapi";
import type { Context } from "hono";
import type { Services } from "../../domain/services.ts";
import { DomainError, invalid } from "../../domain/kernel/errors.ts";
import { isOverLimit, type UploadBytes } from "../../domain/content/files.ts";
import { isMultipart, MultipartError, multipartScope, readMultipart } from "../multipart.ts";
import { contentDisposition } from "./files.ts";
import { actorOf, apiApp, errors, ErrorSchema, header, Id, jsonResponse } from "./openapi.ts";
import { ProjectSchema } from "./schemas.ts";

const tags = ["projects"];
const ZIP = "application/zip";
const Binary = { type: "string" as const, format: "binary" };

const exportRoute = createRoute({
  method: "get",
  path: "/api/projects/{projectId}/export",
  tags,
  summary: "Export the project as a zip archive (owners and admins), streamed",
  request: { params: z.object({ projectId: Id }) },
  responses: {
    200: {
      description: "project.json, files/<fileId>/<name>, board/*.md and notes/*.md",
      headers: { "Content-Disposition": header('`attachment; filename="<name>-<date>.zip"`') },
      content: { [ZIP]: { schema: z.string().openapi(Binary) } },
    },
    ...errors(400, 401, 403, 404, 409),
  },
});

const CountsSchema = z.object({
  threads: z.number().int(),
  comments: z.number().int(),
  notes: z.number().int(),
  chat: z.number().int(),
  columns: z.number().int(),
  items: z.number().int(),
  milestones: z.number().int(),
  events: z.number().int(),
  meetings: z.number().int(),
  files: z.number().int(),
  activity: z.number().int(),
});

const ReportSchema = z.object({
  counts: CountsSchema,
  unmatchedEmails: z.array(z.string()),
}).openapi("ImportReport");

const importRoute = (scope: ReturnType<typeof multipartScope>, maxImportMb: number) =>
  createRoute({
    method: "post",
    path: "/api/projects/import",
    tags,
    summary: `Import an archive made by export as a new project (at most ${maxImportMb} MiB, ` +
      "inflated or not): multipart field `archive`, or the zip as the body",
    middleware: [scope] as const,
    request: {
      // Documented only: the body is read as it arrives, never whole into memory.
      body: {
        content: {
          "multipart/form-data": {
            schema: {
              type: "object" as const,
              properties: { archive: Binary },
              required: ["archive"],
            },
          },
          [ZIP]: { schema: Binary },
        },
        required: true,
      },
    },
    responses: {
      201: jsonResponse(z.object({ project: ProjectSchema, report: ReportSchema }), "Imported"),
      ...errors(400, 401, 403, 415),
      413: {
        description: `The archive, or its inflated total, is over ${maxImportMb} MiB ` +
          "(`MAX_IMPORT_MB`)",
        content: { "application/json": { schema: ErrorSchema } },
      },
    },
  });

const MIB = 1024 * 1024;
/** A body is read into one reused buffer and handed on in runs of at least this many bytes. */
const RUN_BYTES = 256 * 1024;

/**
 * The bytes of a body in runs of about `RUN_BYTES`, each valid until the next is asked for.
 * A network body arrives in small pieces; writing each to disk on its own cost more than the
 * network (25 MiB/s against 200 in bench/archive_bench.ts).
 */
async function* runs(body: ReadableStream<Uint8Array>): AsyncGenerator<Uint8Array> {
  let byob: ReadableStreamBYOBReader | null = null;
  try {
    byob = body.getReader({ mode: "byob" });
  } catch {
    // Not a byte stream (a body built in process): read as it comes.
  }
  if (!byob) {
    yield* body;
    return;
  }
  let buffer = new ArrayBuffer(RUN_BYTES + 64 * 1024);
  let length = 0;
  try {
    for (;;) {
      const { value, done } = await byob.read(new Uint8Array(buffer, length));
      if (value) {
        buffer = value.buffer as ArrayBuffer;
        length += value.byteLength;
      }
      if (length > 0 && (done || length >= RUN_BYTES)) {
        yield new Uint8Array(buffer, 0, length);
        length = 0;
      }
      if (done) return;
    }
  } finally {
    byob.releaseLock();
  }
}

/** The export and import routes. */
export function projectArchiveRoutes(services: Services, options: { maxImportMb: number }) {
  const maxBytes = options.maxImportMb * MIB;
  const tooLarge = () =>
    new DomainError(
      "too_large",
      `Cannot import: archives may be at most ${options.maxImportMb} MiB, inflated or not`,
    );
  const scope = multipartScope({ store: services.fileStore, maxFileBytes: maxBytes });

  /** The archive of a multipart body (spooled; the scope removes it afterwards). */
  async function fromMultipart(c: Context): Promise<UploadBytes> {
    let body;
    try {
      body = await readMultipart(c);
    } catch (error) {
      if (!(error instanceof MultipartError)) throw error;
      if (error.problem === "too_large") throw tooLarge();
      throw invalid("body", "Cannot read the upload: the multipart body is malformed");
    }
    const file = body.files.find((f) => f.field === "archive");
    if (!file) throw invalid("archive", "Send the archive in multipart field `archive`");
    return file.bytes;
  }

  /** The archive sent as the body, spooled to a temporary file as it arrives. */
  async function fromBody(c: Context): Promise<UploadBytes> {
    const declared = Number(c.req.header("content-length") ?? NaN);
    if (declared > maxBytes) throw tooLarge();
    const body = c.req.raw.body;
    if (!body) throw invalid("body", "Send the archive as the body");
    try {
      return await services.fileStore.spool(runs(body), maxBytes);
    } catch (error) {
      throw isOverLimit(error) ? tooLarge() : error;
    }
  }

  return apiApp()
    .openapi(exportRoute, async (c) => {
      const started = await services.projectExport.start(
        actorOf(c),
        c.req.valid("param").projectId,
        requestMeta(c),
      );
      return new Response(started.body, {
        headers: {
          "content-type": ZIP,
          "content-disposition": contentDisposition(started.fileName),
          "x-content-type-options": "nosniff",
          "cache-control": "no-store",
        },
      });
    })
    .openapi(importRoute(scope, options.maxImportMb), async (c) => {
      const actor = actorOf(c);
      const type = (c.req.header("content-type") ?? "").split(";")[0]!.trim().toLowerCase();
      if (isMultipart(c)) {
        const archive = await fromMultipart(c);
        return c.json(await services.projectImport.import(actor, archive, requestMeta(c)), 201);
      }
      if (type !== ZIP) {
        throw new DomainError(
          "unsupported_media_type",
          "Send the archive as multipart field `archive` or as an application/zip body",
        );
      }
      const archive = await fromBody(c);
      try {
        return c.json(await services.projectImport.import(actor, archive, requestMeta(c)), 201);
      } finally {
        await services.fileStore.discard(archive);
      }
    });
}
