-- PostgreSQL: placeholder, filled below.
SELECT 1;
