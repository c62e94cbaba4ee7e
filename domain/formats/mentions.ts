/**
 * @mentions in chat text: `@` (or the full-width `＠`) followed by an email address,
 * matched case-insensitively; punctuation after the address is not part of it.
 */

// The mark must not continue a word or an address ("a@b@c.io" mentions nobody), and the
// address ends at its last letter of the top-level domain, so trailing punctuation drops.
// The local part takes every character an address may hold unquoted (RFC 5322 atext).
// Markdown emphasis around a mention ("**@bo@example.com**", "_@bo@example.com_") does not
// glue it: a run of `*`, `_` or `~` before the mark counts when nothing glues the run itself,
// so the pages highlight exactly the mentions that notify.
const GLUE = "A-Za-z0-9._%+\\-@＠'!#$&*/=?^`{|}~";
const MENTION = new RegExp(
  `(?<=^|[^${GLUE}]|(?:^|[^${GLUE}])[*_~]+)[@＠]` +
    "([A-Za-z0-9._%+\\-'!#$&*/=?^`{|}~]+@[A-Za-z0-9-]+(?:\\.[A-Za-z0-9-]+)*\\.[A-Za-z]{2,})",
  "gu",
);

/** A fresh (global, so stateful) copy of the mention pattern: the address is group 1. */
export function mentionPattern(): RegExp {
  return new RegExp(MENTION.source, MENTION.flags);
}

/** The distinct lower-cased email addresses mentioned in `text`, in order of appearance. */
export function mentionedEmails(text: string): string[] {
  const found = new Set<string>();
  for (const match of text.matchAll(MENTION)) found.add(match[1]!.toLowerCase());
  return [...found];
}
