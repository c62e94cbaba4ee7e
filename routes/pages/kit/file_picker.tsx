/**
 * Attaching a file the project already has: a select of its files beside the upload control,
 * posted as field `fileId`, and how a page reads it into the `fileIds` a domain call links.
 */
import { DomainError, invalid } from "../../../domain/kernel/errors.ts";
import type { FileInfo } from "../../../domain/content/files.ts";
import type { Services } from "../../../domain/services.ts";
import type { Actor } from "../../../domain/accounts/accounts.ts";
import { formatSize } from "../../i18n/format.ts";
import type { PageCtx } from "../context.ts";
import type { Fields } from "./forms.ts";
import { FieldError } from "./layout.tsx";

/** How many of the project's files, newest first, a picker offers. */
export const PICKER_FILES = 100;

/** The files a picker offers: the project's newest, less those in `except` (already attached). */
export async function pickableFiles(
  services: Services,
  actor: Actor,
  projectId: number,
  except: FileInfo[] = [],
): Promise<FileInfo[]> {
  const page = await services.files.list(actor, projectId, {
    source: null,
    page: { page: 1, pageSize: PICKER_FILES },
  });
  const taken = new Set(except.map((f) => f.id));
  return page.items.filter((f) => !taken.has(f.id));
}

/**
 * A select of the project's files (field `fileId`). `required`: the form attaches nothing
 * else, so a file must be chosen; otherwise it is optional beside an upload. Nothing is shown
 * when there is no file to choose (unless a refused choice needs its message).
 */
export function FilePicker(
  props: {
    ctx: PageCtx;
    files: FileInfo[];
    value: string | undefined;
    error: string | undefined;
    required?: boolean;
  },
) {
  const { t, locale } = props.ctx;
  if (props.files.length === 0 && !props.error) return null;
  return (
    <label class="file-picker">
      {t("files.pick")}
      <select name="fileId" required={props.required}>
        <option value="">{t(props.required ? "files.pickChoose" : "files.pickNone")}</option>
        {props.files.map((f) => (
          <option value={String(f.id)} selected={props.value === String(f.id)}>
            {t("files.pickOption", { name: f.name, size: formatSize(f.size, locale) })}
          </option>
        ))}
      </select>
      <FieldError message={props.error} />
    </label>
  );
}

/**
 * The file ids chosen in a form's `fileId`: none when it is empty, else the one id. A value
 * that is no id is refused like an id of no file of the project (the domain's `fileIds`).
 */
export function pickedFileIds(fields: Fields): number[] {
  const raw = (fields.fileId ?? "").trim();
  if (raw === "") return [];
  if (!/^[1-9][0-9]{0,15}$/.test(raw) || !Number.isSafeInteger(Number(raw))) {
    throw invalid("fileIds", "Every file must be a file of this project");
  }
  return [Number(raw)];
}

/** The one file id a form that only attaches must name; a blank choice is a field problem. */
export function requiredPick(fields: Fields): number[] {
  const ids = pickedFileIds(fields);
  if (ids.length === 0) {
    throw new DomainError("validation", "Cannot attach: no file was chosen", {
      details: { fileIds: "blank" },
    });
  }
  return ids;
}

/** How a page words the picker's refusals (field messages for its `FIELDS` table). */
export const PICKER_FIELDS = {
  fileIds: "files.pickInvalid",
  "fileIds:blank": "files.pickEmpty",
} as const;
