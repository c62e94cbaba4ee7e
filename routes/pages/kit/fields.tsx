/**
 * Form controls: labelled fields with their error, text fields whose `required` and
 * `maxlength` come from the operation's input schema, and the forms that post them.
 */
import type { z } from "@hono/zod-openapi";
import type { Child } from "hono/jsx";
import type { Translate } from "../../i18n/i18n.ts";
import { type Fields, textAttrs } from "./forms.ts";
import { FieldError } from "./layout.tsx";
import { refused, type Shown } from "./submit.ts";

/** A form's values and each bad field's message, as a view draws them. */
export interface FormState {
  values: Fields;
  errors: Record<string, string>;
  /** Whether the form came back refused (a folded form opens). */
  refused: boolean;
}

/** The state of the page's form `name`: as refused, else `values` (what it starts from). */
export function formState(shown: Shown, name: string, values: Fields = {}): FormState {
  const form = refused(shown, name);
  return form
    ? { values: form.values, errors: form.errors, refused: true }
    : { values, errors: {}, refused: false };
}

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

/** A text input for field `name` of `schema`, filled from and checked against `form`. */
export function TextField(
  props: {
    label: string;
    schema: z.ZodObject;
    name: string;
    form: FormState;
    type?: string | undefined;
    hint?: string | undefined;
  },
) {
  const { name, form } = props;
  const { required, maxlength, minlength } = textAttrs(props.schema, name);
  // Attributes spelled out, not spread: the markup stays the same as hand-written inputs'.
  return (
    <Field label={props.label} error={form.errors[name]}>
      <input
        name={name}
        type={props.type}
        required={required}
        maxlength={maxlength}
        minlength={minlength}
        value={form.values[name] ?? ""}
      />
      {props.hint ? <span class="hint">{props.hint}</span> : null}
    </Field>
  );
}

/** A textarea whose content survives the parser's dropping of one leading newline. */
export function TextArea(
  props: {
    schema: z.ZodObject;
    name: string;
    value: string | undefined;
    rows?: number | undefined;
    /** The box's name for a text area that has no visible label of its own. */
    label?: string | undefined;
  },
) {
  const { required, maxlength } = textAttrs(props.schema, props.name);
  return (
    <textarea
      name={props.name}
      maxlength={maxlength}
      required={required}
      rows={props.rows ?? 8}
      aria-label={props.label}
    >
      {`\n${props.value ?? ""}`}
    </textarea>
  );
}

/**
 * Where a Markdown text box sits: `static/markdown_preview.js` adds Write and Preview tabs to
 * it (the preview rendered by the server, as the page will show it). Without the script the
 * box is a plain text area.
 */
export function MarkdownBox(props: { t: Translate; children: Child }) {
  const { t } = props;
  return (
    <div
      class="markdown-box"
      data-markdown-box
      data-tabs={t("content.writeOrPreview")}
      data-write={t("content.write")}
      data-preview={t("content.preview")}
      data-loading={t("content.previewLoading")}
      data-empty={t("content.previewEmpty")}
      data-failed={t("content.previewFailed")}
    >
      {props.children}
    </div>
  );
}

/** A Markdown textarea for field `name` of `schema`, with the Markdown hint and a preview. */
export function MarkdownField(
  props: {
    t: Translate;
    label: string;
    schema: z.ZodObject;
    name: string;
    form: FormState;
    rows?: number | undefined;
  },
) {
  const { name, form } = props;
  return (
    <MarkdownBox t={props.t}>
      <Field label={props.label} error={form.errors[name]}>
        <TextArea schema={props.schema} name={name} value={form.values[name]} rows={props.rows} />
        <span class="hint">{props.t("content.markdownHint")}</span>
      </Field>
    </MarkdownBox>
  );
}

/** A checkbox sent as `on`. */
export function Checkbox(props: { label: string; name: string; form: FormState }) {
  return (
    <label class="check">
      <input
        type="checkbox"
        name={props.name}
        value="on"
        checked={props.form.values[props.name] === "on"}
      />
      {props.label}
    </label>
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

/** Further attributes of a form: its `enctype`, class, data attributes for scripts. */
type FormAttrs = Record<string, string | number | boolean | undefined>;

/** A form that posts its fields to `action`, ending in its submit button. */
export function PostForm(
  props: { action: string; submit: string; attrs?: FormAttrs | undefined; children?: Child },
) {
  return (
    <form class="stack" method="post" action={props.action} {...props.attrs}>
      {props.children}
      <div>
        <button type="submit">{props.submit}</button>
      </div>
    </form>
  );
}

/** A create or edit form folded in a card: open when `open` (it came back refused). */
export function FormCard(
  props: {
    open: boolean;
    summary: string;
    action: string;
    submit: string;
    attrs?: FormAttrs | undefined;
    children: Child;
  },
) {
  return (
    <details class="card" open={props.open}>
      <summary>{props.summary}</summary>
      <PostForm action={props.action} submit={props.submit} attrs={props.attrs}>
        {props.children}
      </PostForm>
    </details>
  );
}

/** A one-button form (delete, archive, pin), asking `confirm` first when given. */
export function ButtonForm(
  props: {
    action: string;
    label: string;
    confirm?: string | undefined;
    /** The button's class (default `danger`). */
    button?: string | undefined;
    /** The form's class. */
    class?: string | undefined;
    attrs?: FormAttrs | undefined;
    children?: Child | undefined;
  },
) {
  return (
    <form
      class={props.class}
      method="post"
      action={props.action}
      data-confirm={props.confirm}
      {...props.attrs}
    >
      {props.children}
      <button class={props.button ?? "danger"} type="submit">{props.label}</button>
    </form>
  );
}

/**
 * A thing's edit form and its delete button, for those who may change it (`show`): the form
 * under the heading `heading` in a card, or folded under `summary`; `{action}/delete` deletes.
 */
export function EditAndDelete(
  props: {
    show: boolean;
    form: FormState;
    action: string;
    heading?: string;
    summary?: string;
    submit: string;
    attrs?: FormAttrs | undefined;
    remove: { label: string; confirm: string };
    children: Child;
  },
) {
  if (!props.show) return null;
  const { action, submit, attrs, children } = props;
  const edit = props.summary === undefined
    ? (
      <>
        <h2>{props.heading}</h2>
        <PostForm action={action} submit={submit} attrs={{ class: "stack card", ...attrs }}>
          {children}
        </PostForm>
      </>
    )
    : (
      <FormCard open={props.form.refused} summary={props.summary} {...{ action, submit, attrs }}>
        {children}
      </FormCard>
    );
  return (
    <>
      {edit}
      <ButtonForm action={`${action}/delete`} {...props.remove} />
    </>
  );
}

/** A `datetime-local` input (read as UTC, see `readInstant`), described by the hint `hint`. */
export function DateTimeField(
  props: { label: string; name: string; form: FormState; required?: boolean; hint?: string },
) {
  const { name, form } = props;
  const value = form.values[name] ?? "";
  return (
    <Field label={props.label} error={form.errors[name]}>
      {props.required
        ? (
          <input
            type="datetime-local"
            name={name}
            required
            value={value}
            aria-describedby={props.hint}
          />
        )
        : <input type="datetime-local" name={name} value={value} aria-describedby={props.hint} />}
    </Field>
  );
}

/** A `date` input. */
export function DateField(props: { label: string; name: string; form: FormState }) {
  const { name, form } = props;
  return (
    <Field label={props.label} error={form.errors[name]}>
      <input type="date" name={name} value={form.values[name] ?? ""} />
    </Field>
  );
}

/** A select of `options` (each a value and its label), `value` selected. */
export function Select(
  props: {
    name: string;
    value: string | undefined;
    options: Array<readonly [string | number, string]>;
    label?: string | undefined;
  },
) {
  return (
    <select name={props.name} aria-label={props.label}>
      {props.options.map(([value, text]) => (
        <option value={value} selected={String(value) === props.value}>{text}</option>
      ))}
    </select>
  );
}

/** A page's form for adding something, folded in a card, for those who may write. */
export function NewForm(
  props: {
    canWrite: boolean;
    form: FormState;
    summary: string;
    action: string;
    submit: string;
    attrs?: FormAttrs | undefined;
    children: Child;
  },
) {
  if (!props.canWrite) return null;
  return (
    <FormCard
      open={props.form.refused}
      summary={props.summary}
      action={props.action}
      submit={props.submit}
      attrs={props.attrs}
    >
      {props.children}
    </FormCard>
  );
}

/** A labelled select for field `name`, filled from and checked against `form`. */
export function SelectField(
  props: {
    label: string;
    name: string;
    form: FormState;
    options: Array<readonly [string | number, string]>;
    /** The value chosen when the form has none. */
    initial?: string;
  },
) {
  const { name, form } = props;
  const value = form.values[name] ?? props.initial;
  return (
    <Field label={props.label} error={form.errors[name]}>
      <Select name={name} value={value} options={props.options} />
    </Field>
  );
}
