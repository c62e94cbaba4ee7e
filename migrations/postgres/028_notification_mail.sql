-- PostgreSQL: the change of ../028_notification_mail.sql for this engine (same version, same tables, columns
-- and index names; SQLite INTEGER is bigint here, TEXT text, REAL double precision).
--
-- Notification mail. Each user chooses whether notifications are mailed (`off`, `immediate`:
-- mentions, assignments and meeting invitations a few minutes after they arrive unread, plus a
-- daily digest of the rest; `daily`: one digest a day) and at which hour of their own zone the
-- digest goes (`digest_hour`). `digest_at` is the UTC instant of the next digest (NULL: not
-- scheduled yet, the mailer computes it); `last_digest_at` when the previous one was made (the
-- next lists what came since).
ALTER TABLE users ADD COLUMN email_notifications text NOT NULL DEFAULT 'immediate'
  CHECK (email_notifications IN ('off', 'immediate', 'daily'));
ALTER TABLE users ADD COLUMN digest_hour bigint NOT NULL DEFAULT 9
  CHECK (digest_hour BETWEEN 0 AND 23);
ALTER TABLE users ADD COLUMN digest_at text;
ALTER TABLE users ADD COLUMN last_digest_at text;
-- When a notification was dealt with by mail (mailed, or passed over because the recipient
-- could no longer see it): it is never mailed again. The notifications that exist before this
-- change predate mail and count as dealt with.
ALTER TABLE notifications ADD COLUMN mailed_at text;
UPDATE notifications SET mailed_at = created_at;
-- The mailer's question: unread notifications not yet mailed, oldest first.
CREATE INDEX notifications_unmailed ON notifications (created_at, id)
  WHERE mailed_at IS NULL AND read_at IS NULL;
CREATE INDEX users_digest_due ON users (digest_at) WHERE email_notifications <> 'off';
-- Unsubscribe links (`/unsubscribe/{token}`): only the SHA-256 of each token is kept. Every
-- mail carries a new token and all of a user's stay valid (a link in an old mail keeps
-- working) until the account is deleted.
CREATE TABLE unsubscribe_tokens (
  token_hash text PRIMARY KEY,
  user_id bigint NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  created_at text NOT NULL
);
CREATE INDEX unsubscribe_tokens_user ON unsubscribe_tokens (user_id);
