-- Each user's time zone (an IANA name). NULL means the person never chose one: the API shows
-- `UTC`, and the pages propose the browser's zone once.
ALTER TABLE users ADD COLUMN time_zone TEXT;
