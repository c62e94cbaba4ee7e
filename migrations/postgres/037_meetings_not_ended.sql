-- PostgreSQL: the change of ../037_meetings_not_ended.sql for this engine (same version, same
-- table, columns and index name).
--
-- The personal dashboard's upcoming meetings (`upcomingMeetingIds`, `countUpcomingMeetings`): a
-- project's live meetings by end time, so those that have not ended are one range of it, found
-- without reading the meetings that ended (bench/search.md, section I).
CREATE INDEX meetings_not_ended ON meetings (project_id, end_at) WHERE deleted_at IS NULL;
