-- The loan operations console: who may use it, what changed a customer's blacklist flag, and
-- the indexes its lists and daily statistics read at a million decisions.
--
-- `users.loan_officer` (0/1): set by an admin; admins use the console without it.
ALTER TABLE users ADD COLUMN loan_officer INTEGER NOT NULL DEFAULT 0
  CHECK (loan_officer IN (0, 1));

-- One row per change of a customer's flag through the console, with who made it and why (the
-- audit log holds the same change, written in the same transaction). Registration's own flag is
-- the customer's `is_blacklisted` at `registered_at`, not a row here. No foreign key to users:
-- a row outlives the account that made it, as an audit row does.
CREATE TABLE loan_blacklist_changes (
  id INTEGER PRIMARY KEY,
  customer_name TEXT NOT NULL REFERENCES customers (customer_name),
  at TEXT NOT NULL,
  by_user_id INTEGER NOT NULL,
  blacklisted INTEGER NOT NULL CHECK (blacklisted IN (0, 1)),
  reason TEXT NOT NULL
) STRICT;
-- A customer's history, newest first.
CREATE INDEX loan_blacklist_changes_customer ON loan_blacklist_changes (customer_name, id);

-- The customers' list: newest registration first, then name.
CREATE INDEX customers_registered ON customers (registered_at DESC, customer_name);

-- The decisions' list and CSV, newest first (a keyset of processed_at and id), with the outcome
-- and amount beside them so that the daily statistics and a span's counts read this index
-- alone. Filtered by applicant, the list reads loan_history_applicant (005).
CREATE INDEX loan_history_processed
  ON loan_history (processed_at, id, approved, rejection_reason, requested_amount);
-- The counts of a list filtered by outcome or reason, and of the whole history (its narrowest
-- index).
CREATE INDEX loan_history_outcome ON loan_history (approved, rejection_reason);
