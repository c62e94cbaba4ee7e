-- PostgreSQL: the change of ../038_loan_csv_line.sql for this engine (same version, same column).
-- The CSV record of each decision as the JavaScript formatter writes it (see the SQLite file),
-- a stored generated column (PostgreSQL has no virtual ones before 18). It is not added to
-- loan_history_processed: an index entry has a size limit (about 2.7 KB) that a long applicant
-- name would pass, failing the decision. A float8 is written in its shortest form, as JavaScript
-- writes the number.
ALTER TABLE loan_history ADD COLUMN csv_line text GENERATED ALWAYS AS (
  id::text || ',' ||
  CASE WHEN strpos(applicant_name, '"') > 0 OR strpos(applicant_name, ',') > 0
      OR strpos(applicant_name, chr(13)) > 0 OR strpos(applicant_name, chr(10)) > 0
    THEN '"' || replace(
      CASE WHEN left(applicant_name, 1) IN ('=', '+', '-', '@')
        THEN '''' || applicant_name ELSE applicant_name END, '"', '""') || '"'
    ELSE CASE WHEN left(applicant_name, 1) IN ('=', '+', '-', '@')
      THEN '''' || applicant_name ELSE applicant_name END
  END || ',' ||
  requested_amount::text || ',' ||
  CASE WHEN approved = 1 THEN 'true' ELSE 'false' END || ',' ||
  approved_rate::text || ',' ||
  CASE WHEN rejection_reason IS NULL THEN ''
    WHEN rejection_reason = 'Applicant is blacklisted' THEN 'blacklisted'
    ELSE 'low_score' END || ',' ||
  processed_at
) STORED;
