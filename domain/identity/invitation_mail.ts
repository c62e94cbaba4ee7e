/**
 * The invitation mails: the invitation itself (to a person who has no account yet, in the
 * inviter's language and time zone, since nothing is known of the recipient's) and the note an
 * existing account gets when it is added to a project at once (in its own language and zone).
 * Names are escaped in the HTML part; header values lose control characters in `queueMail`.
 */
import {
  type ComposedMail,
  escapeHtml,
  type MailReader,
  mailTime,
} from "../mail/notification_templates.ts";

const ROLE_NAMES = {
  en: { owner: "owner", member: "member", viewer: "viewer", admin: "administrator" },
  ja: { owner: "オーナー", member: "メンバー", viewer: "閲覧者", admin: "管理者" },
} as const;

function page(locale: string, body: string): string {
  return `<!DOCTYPE html><html lang="${locale}"><head><meta charset="utf-8"></head>` +
    `<body>${body}</body></html>`;
}

/** What an invitation mail says. */
export interface InvitationMailInput {
  inviterName: string;
  /** The project's name; null for an invitation to the server. */
  projectName: string | null;
  role: keyof typeof ROLE_NAMES.en;
  url: string;
  expiresAt: string;
}

/** The invitation mail, in `reader`'s language (the inviter's), times in their zone. */
export function invitationMail(
  input: InvitationMailInput,
  reader: Pick<MailReader, "locale" | "timeZone">,
): ComposedMail {
  const until = mailTime(input.expiresAt, reader);
  const role = ROLE_NAMES[reader.locale][input.role];
  const h = escapeHtml;
  if (reader.locale === "ja") {
    const what = input.projectName === null
      ? "Collab"
      : `Collab のプロジェクト「${input.projectName}」`;
    const subject = `${input.inviterName}さんから${what}への招待`;
    const lead = `${input.inviterName}さんがあなたを${what}に${role}として招待しました。`;
    const how = "次のリンクから参加してください(有効期限:" + until + ")。";
    return {
      subject,
      text:
        `${lead}\n\n${how}\n${input.url}\n\nこのメールに心当たりがない場合は無視してください。\n`,
      html: page(
        "ja",
        `<p>${h(lead)}</p><p>${h(how)}</p><p><a href="${h(input.url)}">招待を受ける</a></p>` +
          "<p><small>このメールに心当たりがない場合は無視してください。</small></p>",
      ),
    };
  }
  const what = input.projectName === null
    ? "Collab"
    : `the project “${input.projectName}” on Collab`;
  const subject = `${input.inviterName} invited you to ${what}`;
  const lead = `${input.inviterName} invited you to ${what} as ${
    /^[aeiou]/.test(role) ? "an" : "a"
  } ${role}.`;
  const how = `Join with this link (it works until ${until}):`;
  return {
    subject,
    text: `${lead}\n\n${how}\n${input.url}\n\nIf you did not expect this mail, ignore it.\n`,
    html: page(
      "en",
      `<p>${h(lead)}</p><p>${h(how)}</p><p><a href="${h(input.url)}">Accept the invitation</a>` +
        "</p><p><small>If you did not expect this mail, ignore it.</small></p>",
    ),
  };
}

/** The note to an existing account added to a project at once, in its own language. */
export function addedMail(
  input: { inviterName: string; projectName: string; role: "owner" | "member" | "viewer" },
  url: string,
  reader: Pick<MailReader, "locale">,
): ComposedMail {
  const role = ROLE_NAMES[reader.locale][input.role];
  const h = escapeHtml;
  if (reader.locale === "ja") {
    const lead =
      `${input.inviterName}さんがあなたをプロジェクト「${input.projectName}」に${role}として追加しました。`;
    return {
      subject: `プロジェクト「${input.projectName}」に追加されました`,
      text: `${lead}\n\n${url}\n`,
      html: page("ja", `<p>${h(lead)}</p><p><a href="${h(url)}">プロジェクトを開く</a></p>`),
    };
  }
  const lead = `${input.inviterName} added you to the project “${input.projectName}” as ${
    /^[aeiou]/.test(role) ? "an" : "a"
  } ${role}.`;
  return {
    subject: `You were added to ${input.projectName}`,
    text: `${lead}\n\n${url}\n`,
    html: page("en", `<p>${h(lead)}</p><p><a href="${h(url)}">Open the project</a></p>`),
  };
}
