/**
 * The mails of getting back in: a reset link, a verification link and "your password was
 * changed", in the account's language (en or ja), times in its zone with the zone named.
 * Names are escaped in the HTML part; links are absolute (BASE_URL).
 */
import {
  type ComposedMail,
  escapeHtml,
  type MailReader,
  mailTime,
} from "../mail/notification_templates.ts";

const WORDS = {
  en: {
    hello: (name: string) => `Hello ${name},`,
    resetSubject: "Reset your Collab password",
    resetIntro: "Someone (we hope you) asked to reset the password of your Collab account.",
    resetOpen: "Choose a new password",
    resetUntil: (when: string) => `The link works once, until ${when}.`,
    resetIgnore: "If you did not ask for this, ignore this mail: your password stays as it is.",
    verifySubject: "Confirm your email address for Collab",
    verifyIntro: "Open this link to confirm that this address is yours:",
    verifyOpen: "Confirm my address",
    verifyUntil: (when: string) => `The link works once, until ${when}.`,
    changedSubject: "Your Collab password was changed",
    changedIntro: (when: string) =>
      `The password of your Collab account was changed at ${when}. Every session was signed out ` +
      "and every API token revoked.",
    changedHelp:
      "If you did not do this, ask for a new reset link at once and tell your administrator.",
  },
  ja: {
    hello: (name: string) => `${name} さん`,
    resetSubject: "Collab のパスワードの再設定",
    resetIntro: "Collab アカウントのパスワード再設定が依頼されました。",
    resetOpen: "新しいパスワードを設定する",
    resetUntil: (when: string) => `このリンクは ${when} まで、1 回だけ使えます。`,
    resetIgnore: "心当たりがない場合は、このメールを無視してください。パスワードは変わりません。",
    verifySubject: "Collab のメールアドレスの確認",
    verifyIntro: "このアドレスがあなたのものであることを確認するには、次のリンクを開いてください。",
    verifyOpen: "メールアドレスを確認する",
    verifyUntil: (when: string) => `このリンクは ${when} まで、1 回だけ使えます。`,
    changedSubject: "Collab のパスワードが変更されました",
    changedIntro: (when: string) =>
      `${when} に Collab アカウントのパスワードが変更されました。すべてのセッションはサインアウトされ、API トークンはすべて無効になりました。`,
    changedHelp: "心当たりがない場合は、すぐに再設定のリンクを依頼し、管理者に知らせてください。",
  },
} as const;

function compose(lines: string[], link: { url: string; label: string } | null, after: string[]) {
  const text = [...lines, ...(link ? ["", link.url] : []), "", ...after].join("\n") + "\n";
  const html = lines.map((l) => `<p>${escapeHtml(l)}</p>`).join("") +
    (link ? `<p><a href="${escapeHtml(link.url)}">${escapeHtml(link.label)}</a></p>` : "") +
    after.map((l) => `<p>${escapeHtml(l)}</p>`).join("");
  return { text, html };
}

/** The mail carrying a reset link `url` that works until `expiresAt`. */
export function resetMail(reader: MailReader, url: string, expiresAt: string): ComposedMail {
  const w = WORDS[reader.locale];
  return {
    subject: w.resetSubject,
    ...compose(
      [w.hello(reader.displayName), w.resetIntro],
      { url, label: w.resetOpen },
      [w.resetUntil(mailTime(expiresAt, reader)), w.resetIgnore],
    ),
  };
}

/** The mail carrying a verification link `url` that works until `expiresAt`. */
export function verifyMail(reader: MailReader, url: string, expiresAt: string): ComposedMail {
  const w = WORDS[reader.locale];
  return {
    subject: w.verifySubject,
    ...compose(
      [w.hello(reader.displayName), w.verifyIntro],
      { url, label: w.verifyOpen },
      [w.verifyUntil(mailTime(expiresAt, reader))],
    ),
  };
}

/** The mail telling that the password was changed at `at`. */
export function passwordChangedMail(reader: MailReader, at: string): ComposedMail {
  const w = WORDS[reader.locale];
  return {
    subject: w.changedSubject,
    ...compose([w.hello(reader.displayName), w.changedIntro(mailTime(at, reader))], null, [
      w.changedHelp,
    ]),
  };
}
