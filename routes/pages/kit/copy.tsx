/**
 * Text a reader copies into another tool (a secret, a feed URL): shown and selectable as it
 * is, with a Copy button that `static/copy.js` reveals and works (without the script the
 * button stays hidden and the text is copied by hand).
 */
import type { Translate } from "../../i18n/i18n.ts";

/** `text` in a selectable box with its Copy button; `label` says what it is to screen readers. */
export function CopyText(props: { t: Translate; id: string; text: string; label: string }) {
  const { t } = props;
  return (
    <div class="copy row">
      <code id={props.id} class="copy-text">{props.text}</code>
      <button
        type="button"
        class="secondary small"
        hidden
        data-copy={props.id}
        data-copied={t("copy.done")}
        data-failed={t("copy.failed")}
        aria-label={t("copy.label", { what: props.label })}
      >
        {t("copy.button")}
      </button>
    </div>
  );
}

/** The script of the Copy buttons, once on a page that has any. */
export function CopyScript() {
  return <script type="module" src="/static/copy.js"></script>;
}
