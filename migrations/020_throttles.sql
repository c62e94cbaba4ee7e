-- Login, password-change and registration throttling, shared by every instance over the
-- database (before, each process counted in its own memory, so two instances doubled every
-- allowance). One row per thing a rule counts for a subject (an email, an account, a client
-- address):
--
-- - `pending`: an attempt admitted and not yet ended (its password is being hashed). It
--   counts against the limit until it ends, so attempts sent at once cannot pass the limit
--   together; it is written in a transaction of its own before any hashing. `expires_at` is
--   when it stops counting even if it never ends (its instance stopped meanwhile).
-- - `counted`: a failed login or an accepted registration; `expires_at` is when it leaves
--   the rule's window.
-- - `locked`: the subject is locked until `expires_at`.
--
-- `rule` names the rule (`login_account`, `login_address`, `password_account`,
-- `password_address`, `registration_address`). Only rows with `expires_at` after now count;
-- expired ones are pruned now and then by the writers (`db/throttle.ts`), so the table holds
-- about what the windows hold. Timestamps are ISO 8601 text, as everywhere.
CREATE TABLE throttle_entries (
  id INTEGER PRIMARY KEY,
  rule TEXT NOT NULL,
  subject TEXT NOT NULL,
  state TEXT NOT NULL CHECK (state IN ('pending', 'counted', 'locked')),
  created_at TEXT NOT NULL,
  expires_at TEXT NOT NULL
) STRICT;

-- A subject's live rows: one index range per rule checked.
CREATE INDEX throttle_entries_subject ON throttle_entries (rule, subject, expires_at);
-- The pruning: the oldest expired rows first.
CREATE INDEX throttle_entries_expiry ON throttle_entries (expires_at);
