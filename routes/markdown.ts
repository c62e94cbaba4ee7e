/**
 * Markdown to sanitised HTML, in one place (markdown-it): raw HTML is off (escaped as
 * text), links and images may only point at http(s) or mailto, images become links (the
 * page CSP allows no remote images), and every link opens without a referrer.
 */
import MarkdownIt from "markdown-it";

const ALLOWED = /^(https?:|mailto:)/i;

const md = new MarkdownIt({ html: false, linkify: true, breaks: true, typographer: false });

md.validateLink = (url: string) => ALLOWED.test(url.trim());

md.renderer.rules.image = (tokens, idx) => {
  const token = tokens[idx]!;
  const src = String(token.attrGet("src") ?? "");
  const alt = md.utils.escapeHtml(token.content || src);
  return `<a href="${md.utils.escapeHtml(src)}" rel="noopener noreferrer nofollow">${alt}</a>`;
};

const defaultLinkOpen = md.renderer.rules.link_open ??
  ((tokens, idx, options, _env, self) => self.renderToken(tokens, idx, options));
md.renderer.rules.link_open = (tokens, idx, options, env, self) => {
  tokens[idx]!.attrSet("rel", "noopener noreferrer nofollow");
  return defaultLinkOpen(tokens, idx, options, env, self);
};

/** Renders Markdown source to HTML that is safe to insert into a page. */
export function renderMarkdown(source: string): string {
  return md.render(source);
}
