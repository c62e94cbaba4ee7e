-- The loan approval service: registered customers and the history of every decision.

CREATE TABLE customers (
  customer_name TEXT PRIMARY KEY,
  is_blacklisted INTEGER NOT NULL DEFAULT 0 CHECK (is_blacklisted IN (0, 1)),
  registered_at TEXT NOT NULL
) STRICT;

CREATE TABLE loan_history (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  applicant_name TEXT NOT NULL,
  requested_amount INTEGER NOT NULL CHECK (requested_amount > 0),
  approved INTEGER NOT NULL CHECK (approved IN (0, 1)),
  approved_rate REAL NOT NULL,
  rejection_reason TEXT,
  processed_at TEXT NOT NULL,
  CHECK ((approved = 1) = (rejection_reason IS NULL))
) STRICT;
CREATE INDEX loan_history_applicant ON loan_history (applicant_name, processed_at);
