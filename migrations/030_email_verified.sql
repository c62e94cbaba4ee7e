-- Verified email addresses. An address counts as verified once its owner has shown they read
-- its mail (accepting an invitation mailed to it, a password reset through a mailed link, or a
-- verification link) or an invitation made the account for it. Accounts that exist before this
-- change have proved nothing: 0. Single sign-on links an account to a provider's identity by
-- email only when the address is verified.
ALTER TABLE users ADD COLUMN email_verified INTEGER NOT NULL DEFAULT 0
  CHECK (email_verified IN (0, 1));
