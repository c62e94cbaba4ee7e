/**
 * Markdown to sanitised HTML, in one place for the pages and the mail (the parser of domain/formats/markdown.ts): raw HTML is
 * off (escaped as text), links and images may only point at http(s) or mailto, images become
 * links (the page CSP allows no remote images), every link opens without a referrer, and an
 * @mention of a member shows their name in a `mention` span (`mention-me` for the reader).
 */
import {
  markdownParser,
  type MentionContext,
  type MentionMeta,
  mentionTarget,
} from "./markdown.ts";

const ALLOWED = /^(https?:|mailto:)/i;

const md = markdownParser();

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

md.renderer.rules.mention = (tokens, idx, _options, env) => {
  const meta = tokens[idx]!.meta as unknown as MentionMeta;
  const context = (env as { mentions?: MentionContext }).mentions;
  const target = mentionTarget(context, meta.email);
  if (!target) return md.utils.escapeHtml(meta.typed);
  const mine = context?.viewerId === target.userId;
  return `<span class="${
    mine ? "mention mention-me" : "mention"
  }" data-mention="${target.userId}"` +
    ` title="${md.utils.escapeHtml(meta.email)}">@${
      md.utils.escapeHtml(target.displayName)
    }</span>`;
};

/**
 * Renders Markdown source to HTML that is safe to insert into a page; mentions of
 * `mentions`' members show their names, other mentions stay as typed.
 */
export function renderMarkdown(source: string, mentions?: MentionContext): string {
  return md.render(source, { mentions });
}
