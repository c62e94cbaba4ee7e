/**
 * Markdown as the project reads it: one markdown-it set-up (raw HTML off, bare links found)
 * that also knows @mentions, and the plain text of a Markdown source for the places that
 * show one line (notifications, search snippets, dashboards). The HTML renderer
 * (routes/markdown.ts) builds on the same parser, so a page and its summary agree.
 */
import MarkdownIt from "markdown-it";
import type { MarkdownIt as Markdown, StateCore, Token } from "markdown-it";
import { mentionPattern } from "./mentions.ts";

/** A person a mention may name: a project member. */
export interface MentionTarget {
  userId: number;
  email: string;
  displayName: string;
}

/** Who mentions resolve to, and who is reading (their own mentions stand out). */
export interface MentionContext {
  members: readonly MentionTarget[];
  viewerId?: number | null | undefined;
}

/** What a `mention` token carries: the address as typed, lower-cased, and the `@` as typed. */
export interface MentionMeta {
  email: string;
  typed: string;
}

/**
 * Splits the text tokens of every inline block on @mentions, into `mention` tokens. It runs
 * before linkify, which would otherwise turn the address into a mailto link; code spans and
 * link targets are other token types and are left alone.
 */
function mentionRule(state: StateCore): void {
  for (const block of state.tokens) {
    if (block.type !== "inline" || !block.children) continue;
    const out: Token[] = [];
    let changed = false;
    for (const token of block.children) {
      if (token.type !== "text" || !/[@＠]/.test(token.content)) {
        out.push(token);
        continue;
      }
      let last = 0;
      for (const match of token.content.matchAll(mentionPattern())) {
        const at = match.index;
        if (at > last) out.push(textToken(state, token.content.slice(last, at), token.level));
        const mention = new state.Token("mention", "", 0);
        mention.level = token.level;
        mention.content = match[0];
        mention.meta = { email: match[1]!.toLowerCase(), typed: match[0] } satisfies MentionMeta;
        out.push(mention);
        last = at + match[0].length;
        changed = true;
      }
      if (last === 0) out.push(token);
      else if (last < token.content.length) {
        out.push(textToken(state, token.content.slice(last), token.level));
      }
    }
    if (changed) block.children = out;
  }
}

function textToken(state: StateCore, content: string, level: number): Token {
  const token = new state.Token("text", "", 0);
  token.content = content;
  token.level = level;
  return token;
}

/** A markdown-it instance with the project's options and the mention rule. */
export function markdownParser(): Markdown {
  const md = new MarkdownIt({ html: false, linkify: true, breaks: true, typographer: false });
  md.core.ruler.before("linkify", "mention", mentionRule);
  return md;
}

/** The member a mention names, or undefined (then it stays as typed). */
export function mentionTarget(
  context: MentionContext | undefined,
  email: string,
): MentionTarget | undefined {
  return context?.members.find((m) => m.email.toLowerCase() === email);
}

// Summaries show a link's words whatever its target: nothing of it is followed.
const parser = markdownParser();
parser.validateLink = () => true;

// A line break inside a paragraph reads as a space.
const BREAKS = new Set(["softbreak", "hardbreak"]);

/** The words of inline `tokens`: text as written, links as their words, mentions as names. */
function inlineText(tokens: Token[], context: MentionContext | undefined): string {
  let text = "";
  for (const token of tokens) {
    if (token.type === "mention") {
      const meta = token.meta as unknown as MentionMeta;
      const target = mentionTarget(context, meta.email);
      text += target ? `@${target.displayName}` : meta.typed;
    } else if (token.type === "image") {
      text += inlineText(token.children ?? [], context);
    } else if (BREAKS.has(token.type)) {
      text += " ";
    } else if (token.nesting === 0) {
      // text, code_inline, html_inline (kept as text: raw HTML is off), entities.
      text += token.content;
    }
  }
  return text;
}

/**
 * The plain text of Markdown `source` on one line: no emphasis marks, heading or list
 * markers, link syntax (a link shows its words) or code fences; mentions of `context`'s
 * members read `@Display Name`; whitespace collapsed. Not HTML: escape it where it is shown.
 */
export function markdownToText(source: string, context?: MentionContext): string {
  const parts: string[] = [];
  for (const token of parser.parse(source, {})) {
    if (token.type === "inline") parts.push(inlineText(token.children ?? [], context));
    else if (token.type === "fence" || token.type === "code_block") parts.push(token.content);
  }
  return parts.join(" ").replace(/\s+/g, " ").trim();
}

/** `text` cut to at most `max` characters (never inside a character), `…` ending a cut one. */
export function clipText(text: string, max: number): string {
  const chars = [...text];
  return chars.length > max ? `${chars.slice(0, max - 1).join("")}…` : text;
}
