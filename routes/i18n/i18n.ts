/** Picking the interface strings of a locale and filling in their placeholders. */
import { en, type MessageKey, type Messages } from "./en.ts";
import { ja } from "./ja.ts";

/** A supported interface language. */
export type Locale = "en" | "ja";

const CATALOGS: Record<Locale, Messages> = { en, ja };

/** Translates a key, replacing `{name}` placeholders with `params`. */
export type Translate = (key: MessageKey, params?: Record<string, string | number>) => string;

/** The translator of `locale`. */
export function translator(locale: Locale): Translate {
  const messages = CATALOGS[locale];
  return (key, params) => {
    const text = messages[key];
    return params ? text.replace(/\{(\w+)\}/g, (m, name) => String(params[name] ?? m)) : text;
  };
}
