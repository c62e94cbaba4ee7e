/**
 * Released migrations never change: a database that applied one records its checksum, and the
 * server refuses to start when the file differs (even by a comment). This pins the SHA-256 of
 * every migration file that has been released, on both engines, so that an edit (a moved path
 * in a comment, a reformat) fails here instead of at a user's next start-up. A change to the
 * schema is a new migration; a new release adds its files to this list.
 */
import assert from "node:assert/strict";
import { createHash } from "node:crypto";

const MIGRATIONS = new URL("../../../migrations/", import.meta.url);

/** The first 16 hex digits of each released file's SHA-256. */
const RELEASED: Record<string, string> = {
  "001_collaboration_base.sql": "a7cac7a743460449",
  "002_attachments.sql": "6e4e445d9d31098b",
  "003_todo_tags.sql": "baabccda7f0ae17b",
  "004_user_theme_locale.sql": "eb35e59a906745a9",
  "005_loan_service.sql": "907fb942cc7e8b80",
  "006_search.sql": "18f80e1cb8dd1d76",
  "007_dashboard_indexes.sql": "c802e96e86deaf60",
  "008_search_order.sql": "fff4645a5057fa98",
  "009_file_upload_subject.sql": "c617b82377191d2e",
  "010_trash.sql": "1dd1d4ee04cceabd",
  "011_api_tokens.sql": "49d54af4c63e86a3",
  "012_calendar_feeds.sql": "66a0a6f213a51389",
  "013_webhooks.sql": "9a57f50186c04a3a",
  "014_staged_import.sql": "eca4fb617ab77f47",
  "015_user_stream_notification_levels.sql": "d3da24fa5e9d2369",
  "016_todo_checklists.sql": "3323af1fff40c127",
  "017_user_time_zone.sql": "f3eade88a647e55a",
  "018_theme_system.sql": "36fe8a536c62ef02",
  "019_webhook_outbox.sql": "fcbd394263ddb23b",
  "020_throttles.sql": "7ef0816e734e36e0",
  "021_instance_holds.sql": "238c181c81dba544",
  "022_search_text.sql": "95136112768b824d",
  "023_checklist_search_triggers.sql": "e4fcba10d701b40e",
  "024_todo_done_order.sql": "fcd5dbaa3c0be6a7",
  "025_open_item_indexes.sql": "81e2b25710ef20b2",
  "026_mail_outbox.sql": "d2d3675bc4304085",
  "027_calendar_todo_dates.sql": "ea16208e82307fbc",
  "028_notification_mail.sql": "804bdf15bcbaee30",
  "029_search_typed.sql": "cddbd071f3bc902d",
  "030_email_verified.sql": "4857f1e42d77bbe6",
  "031_invitations.sql": "9cf797c23d6f1caa",
  "032_account_links.sql": "a4f2a413322956ae",
  "033_mail_bodies.sql": "e38794762110b02d",
  "034_sso_identities.sql": "68938bb665258413",
  "035_audit_log.sql": "1e69865f4d56548a",
  "036_loan_console.sql": "a0cf96f9a58055e1",
  "037_meetings_not_ended.sql": "15fd799d1020447b",
  "038_loan_csv_line.sql": "4bdc566f0c1af627",
  "postgres/001_collaboration_base.sql": "57b6cd229107790e",
  "postgres/002_attachments.sql": "06a93b0b4d31eab9",
  "postgres/003_todo_tags.sql": "4b34221f6cc57da2",
  "postgres/004_user_theme_locale.sql": "c0fc4d419e606214",
  "postgres/005_loan_service.sql": "e68bfaa6965e8cbd",
  "postgres/006_search.sql": "77cec53827e562ac",
  "postgres/007_dashboard_indexes.sql": "6bf3057293f67f84",
  "postgres/008_search_order.sql": "d5642cf8f113832c",
  "postgres/009_file_upload_subject.sql": "f4714b51de3ea215",
  "postgres/010_trash.sql": "7d45e41689abd673",
  "postgres/011_api_tokens.sql": "4f61423ce3de73db",
  "postgres/012_calendar_feeds.sql": "6a2281b3f13637dc",
  "postgres/013_webhooks.sql": "10da94ef5a8c3f8c",
  "postgres/014_staged_import.sql": "4518013f945982a1",
  "postgres/015_user_stream_notification_levels.sql": "80e2ea57ccae8826",
  "postgres/016_todo_checklists.sql": "50fc43b8ff79983b",
  "postgres/017_user_time_zone.sql": "c3b0a55112888edd",
  "postgres/018_theme_system.sql": "af1bfc30a75e4140",
  "postgres/019_webhook_outbox.sql": "1030dbfe278f241f",
  "postgres/020_throttles.sql": "cebf829f5a8f12b8",
  "postgres/021_instance_holds.sql": "45b440c8ca3325ef",
  "postgres/022_search_text.sql": "aa312e7512da7640",
  "postgres/023_checklist_search_triggers.sql": "e361ad301677cd12",
  "postgres/024_todo_done_order.sql": "549900967977f10f",
  "postgres/025_open_item_indexes.sql": "deb1d92b7caa6ff2",
  "postgres/026_mail_outbox.sql": "6b690ab4c3393565",
  "postgres/027_calendar_todo_dates.sql": "ea16208e82307fbc",
  "postgres/028_notification_mail.sql": "a31db3b6c2fb83a2",
  "postgres/029_search_typed.sql": "1c6cb8ab003ae307",
  "postgres/030_email_verified.sql": "14089dc208cc154f",
  "postgres/031_invitations.sql": "52df6a4a785b5c27",
  "postgres/032_account_links.sql": "2a2e8b3255483b3f",
  "postgres/033_mail_bodies.sql": "de7bcc2b4c83878e",
  "postgres/034_sso_identities.sql": "a85056a38c9446d3",
  "postgres/035_audit_log.sql": "51f42bede8b2189e",
  "postgres/036_loan_console.sql": "f7d9e5cf3e0f3652",
  "postgres/037_meetings_not_ended.sql": "17a980c6f033fee5",
  "postgres/038_loan_csv_line.sql": "d27dd62a5c97baa5",
};

Deno.test("released migrations are unchanged, byte for byte, on both engines", async () => {
  const changed: string[] = [];
  for (const [name, sum] of Object.entries(RELEASED)) {
    const bytes = await Deno.readFile(new URL(name, MIGRATIONS));
    const actual = createHash("sha256").update(bytes).digest("hex").slice(0, 16);
    if (actual !== sum) changed.push(`${name}: ${actual}, released ${sum}`);
  }
  assert.deepEqual(changed, []);
});
