/** The tree both XML readers give (`xml.ts`, with saxes, and `quick_xml.ts`). */

/** One element of the parsed tree. */
export interface XmlElement {
  /** Namespace URI, "" when in no namespace. */
  ns: string;
  local: string;
  /**
   * Attributes keyed by `{ns}local` (just `local` when in no namespace). Namespace
   * declarations (`xmlns`, `xmlns:p`) are not attributes here: saxes applies them.
   */
  attributes: ReadonlyMap<string, string>;
  children: XmlElement[];
  /** The concatenated character data directly inside this element. */
  text: string;
}
