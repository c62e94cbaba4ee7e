/** Files: upload, list, delete, download, and attachments on threads, comments and more. */
import { createRoute, z } from "@hono/zod-openapi";
import type { Context, MiddlewareHandler } from "hono";
import type { AttachableType } from "../../domain/content/attachments.ts";
import { invalid } from "../../domain/kernel/errors.ts";
import { tooLarge, type Upload } from "../../domain/content/files.ts";
import { pageRequest } from "../../domain/kernel/paging.ts";
import type { Services } from "../../domain/services.ts";
import { isMultipart, MultipartError, multipartScope, readMultipart } from "../multipart.ts";
import {
  actorOf,
  apiApp,
  errors,
  ErrorSchema,
  header,
  Id,
  jsonResponse,
  PageQuery,
  pageSchema,
} from "./openapi.ts";
import { FileIdsSchema, FileSchema } from "./schemas.ts";

const tags = ["files"];
const ProjectParam = z.object({ projectId: Id });
/**
 * The multipart body, for the OpenAPI document only: it is read by `readMultipart` as it
 * arrives (a validator would read it whole into memory first).
 */
const UploadSchema = {
  type: "object" as const,
  properties: {
    file: { type: "string" as const, format: "binary", description: "The file, with its name" },
  },
  required: ["file"],
};

/** The 413 answer of an upload route, with the configured limit in MiB. */
const tooLargeResponse = (maxUploadMb: number) => ({
  413: {
    description: `The file is larger than ${maxUploadMb} MiB (\`MAX_UPLOAD_MB\`, in mebibytes)`,
    content: { "application/json": { schema: ErrorSchema } },
  },
});

const upload = (scope: MiddlewareHandler, maxUploadMb: number) =>
  createRoute({
    method: "post",
    path: "/api/projects/{projectId}/files",
    tags,
    summary: `Upload a file (multipart field \`file\`, at most ${maxUploadMb} MiB); ` +
      "members of the project are notified",
    middleware: [scope] as const,
    request: {
      params: ProjectParam,
      body: { content: { "multipart/form-data": { schema: UploadSchema } }, required: true },
    },
    responses: {
      201: jsonResponse(z.object({ file: FileSchema }), "Stored"),
      ...errors(400, 401, 403, 404, 413, 415),
      ...tooLargeResponse(maxUploadMb),
    },
  });

const list = createRoute({
  method: "get",
  path: "/api/projects/{projectId}/files",
  tags,
  summary: "Files, newest first (`?source=upload|attachment`)",
  request: { params: ProjectParam, query: PageQuery.extend({ source: z.string().optional() }) },
  responses: {
    200: jsonResponse(pageSchema(FileSchema), "A page of files"),
    ...errors(400, 401, 404),
  },
});

const remove = createRoute({
  method: "delete",
  path: "/api/projects/{projectId}/files/{fileId}",
  tags,
  summary: "Move a file to the trash (uploader, owner or admin; its attachment links are " +
    "hidden and its bytes kept until it is purged); `?purge=true` removes it and its bytes at " +
    "once, also from the trash (owner or admin)",
  request: {
    params: z.object({ projectId: Id, fileId: Id }),
    query: z.object({ purge: z.enum(["true", "false"]).optional() }),
  },
  responses: { 204: { description: "Deleted" }, ...errors(400, 401, 403, 404) },
});

const download = createRoute({
  method: "get",
  path: "/api/files/{fileId}/download",
  tags,
  summary: "Download a file (members of its project)",
  request: { params: z.object({ fileId: Id }) },
  responses: {
    200: {
      description: "The bytes, in the file's stored `contentType` (from its name's extension; " +
        "`application/octet-stream` when unknown), as an attachment with the original name",
      headers: {
        "Content-Disposition": header("`attachment` with `filename` and RFC 8187 `filename*`"),
      },
      content: { "*/*": { schema: z.string().openapi({ format: "binary" }) } },
    },
    ...errors(400, 401, 404),
  },
});

const ATTACHABLE: Array<[string, AttachableType, string]> = [
  ["chat/messages", "message", "messageId"],
  ["board/threads", "thread", "threadId"],
  ["board/comments", "comment", "commentId"],
  ["todos/items", "item", "itemId"],
];

const attach = (path: string, param: string, scope: MiddlewareHandler, maxUploadMb: number) =>
  createRoute({
    method: "post",
    path: `/api/projects/{projectId}/${path}/{${param}}/attachments`,
    tags,
    summary: "Attach files: JSON `{fileIds}` or a multipart `file` of at most " +
      `${maxUploadMb} MiB (stored with source attachment)`,
    middleware: [scope] as const,
    request: {
      params: z.object({ projectId: Id, [param]: Id }),
      body: {
        content: {
          "application/json": {
            schema: z.object({ fileIds: FileIdsSchema }).openapi("AttachInput"),
          },
          "multipart/form-data": { schema: UploadSchema },
        },
        required: false,
      },
    },
    responses: {
      200: jsonResponse(z.object({ attachments: z.array(FileSchema) }), "All attachments now"),
      ...errors(400, 401, 403, 404, 413, 415),
      ...tooLargeResponse(maxUploadMb),
    },
  });

/** An ASCII-only fallback name for `filename=`. */
function asciiName(name: string): string {
  const ascii = name.replace(/[^\x20-\x7e]/g, "_").replace(/["\\]/g, "_").trim();
  return ascii || "download";
}

/** `Content-Disposition` with an ASCII `filename` and an RFC 8187 `filename*`. */
export function contentDisposition(
  name: string,
  type: "attachment" | "inline" = "attachment",
): string {
  const encoded = encodeURIComponent(name).replace(
    /['()*]/g,
    (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`,
  );
  return `${type}; filename="${asciiName(name)}"; filename*=UTF-8''${encoded}`;
}

const MISSING_FILE = "Send the file in multipart field `file`";

/** The file routes. */
export function fileRoutes(services: Services, options: { maxUploadMb: number }) {
  const maxFileBytes = options.maxUploadMb * 1024 * 1024;
  // Uploads spooled to temporary files and not stored are removed after the handler.
  const scope = multipartScope({ store: services.fileStore, maxFileBytes });

  /** The `file` of a multipart upload, read as it arrives; refusals are domain errors. */
  async function uploadOf(c: Context): Promise<Upload> {
    let body;
    try {
      body = await readMultipart(c);
    } catch (error) {
      if (!(error instanceof MultipartError)) throw error;
      if (error.problem === "too_large") throw tooLarge(maxFileBytes);
      if (error.field !== undefined) {
        throw invalid(error.field, "Cannot read this field: it is not UTF-8 text");
      }
      throw invalid("body", "Cannot read the upload: the multipart body is malformed");
    }
    const file = body.files.find((f) => f.field === "file");
    if (!file) throw invalid("file", MISSING_FILE);
    return { name: file.name, bytes: file.bytes };
  }

  const app = apiApp()
    .openapi(upload(scope, options.maxUploadMb), async (c) => {
      if (!isMultipart(c)) throw invalid("file", MISSING_FILE);
      const stored = await services.files.upload(
        actorOf(c),
        c.req.valid("param").projectId,
        await uploadOf(c),
      );
      return c.json({ file: stored }, 201);
    })
    .openapi(list, async (c) => {
      const query = c.req.valid("query");
      return c.json(
        await services.files.list(actorOf(c), c.req.valid("param").projectId, {
          source: query.source ?? null,
          page: pageRequest(query),
        }),
        200,
      );
    })
    .openapi(remove, async (c) => {
      const { projectId, fileId } = c.req.valid("param");
      if (c.req.valid("query").purge === "true") {
        await services.trash.purgeFile(actorOf(c), projectId, fileId);
      } else {
        await services.files.remove(actorOf(c), projectId, fileId);
      }
      return c.body(null, 204);
    })
    .openapi(download, async (c) => {
      const { file, bytes } = await services.files.download(
        actorOf(c),
        c.req.valid("param").fileId,
      );
      const headers = {
        "content-type": file.contentType,
        "content-length": String(file.size),
        "content-disposition": contentDisposition(file.name),
        "x-content-type-options": "nosniff",
        "content-security-policy": "default-src 'none'; sandbox",
        "cache-control": "no-store",
      };
      return new Response(bytes, { headers });
    });
  for (const [path, type, param] of ATTACHABLE) {
    app.openapi(attach(path, param, scope, options.maxUploadMb), async (c) => {
      const params = c.req.valid("param") as Record<string, number>;
      const target = { projectId: params.projectId!, type, id: params[param]! };
      // The multipart entry is a plain schema (documented, not validated), which hides the
      // JSON entry from the route's types; the JSON validator ran all the same.
      const valid = c.req.valid as unknown as (target: "json") => { fileIds?: number[] };
      const json = isMultipart(c) ? {} : valid.call(c.req, "json");
      const input = isMultipart(c)
        ? { upload: await uploadOf(c) }
        : json.fileIds
        ? { fileIds: json.fileIds }
        : null;
      if (!input) throw invalid("fileIds", "Send JSON {fileIds} or a multipart file");
      return c.json(
        { attachments: await services.attachments.add(actorOf(c), target, input) },
        200,
      );
    });
  }
  return app;
}
