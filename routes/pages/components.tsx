/**
 * Small pieces the area pages share: labelled fields, the collapsible form card and an
 * attachment's download line.
 */
import type { Child } from "hono/jsx";
import type { FileInfo } from "../../domain/files.ts";
import type { Translate } from "../i18n/i18n.ts";
import { FieldError } from "./layout.tsx";
import { formatSize, TextArea } from "./project_nav.tsx";

/** A labelled control (and any hint after it), followed by its field's error message. */
export function Field(props: { label: string; error: string | undefined; children: Child }) {
  return (
    <label>
      {props.label}
      {props.children}
      <FieldError message={props.error} />
    </label>
  );
}

/** The required title field of a form. */
export function TitleField(
  props: { label: string; max: number; value: string; error: string | undefined },
) {
  return (
    <Field label={props.label} error={props.error}>
      <input name="title" required maxlength={props.max} value={props.value} />
    </Field>
  );
}

/** A Markdown textarea with the Markdown hint. */
export function MarkdownField(
  props: {
    t: Translate;
    label: string;
    name: string;
    value: string | undefined;
    max: number;
    error: string | undefined;
    required?: boolean;
    rows?: number;
  },
) {
  return (
    <Field label={props.label} error={props.error}>
      <TextArea
        name={props.name}
        value={props.value}
        max={props.max}
        required={props.required}
        rows={props.rows}
      />
      <span class="hint">{props.t("content.markdownHint")}</span>
    </Field>
  );
}

/** The optional file attached to a post. */
export function FileField(props: { t: Translate; error: string | undefined }) {
  return (
    <Field label={props.t("content.attachFile")} error={props.error}>
      <input type="file" name="file" />
    </Field>
  );
}

/**
 * A create or edit form folded in a card: open when `open` (it came back refused). `attrs`
 * are further attributes of the form (its `enctype`, data attributes for scripts).
 */
export function FormCard(
  props: {
    open: boolean;
    summary: string;
    action: string;
    submit: string;
    attrs?: Record<string, string | number | boolean | undefined>;
    children: Child;
  },
) {
  return (
    <details class="card" open={props.open}>
      <summary>{props.summary}</summary>
      <form class="stack" method="post" action={props.action} {...props.attrs}>
        {props.children}
        <div>
          <button type="submit">{props.submit}</button>
        </div>
      </form>
    </details>
  );
}

/** An attachment's list item: its download link and size. */
export function AttachmentItem(props: { file: FileInfo; locale: string }) {
  const f = props.file;
  return (
    <li data-file={f.id}>
      <a href={f.downloadUrl} download={f.name}>{f.name}</a>{" "}
      <span class="muted">{formatSize(f.size, props.locale)}</span>
    </li>
  );
}
