/** The pages' Markdown renderer: the one the mail uses too (domain/formats/markdown_html.ts). */
export { renderMarkdown } from "../domain/formats/markdown_html.ts";
