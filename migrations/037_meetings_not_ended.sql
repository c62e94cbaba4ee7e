-- The personal dashboard's upcoming meetings (db/overview/dashboards.ts: `upcomingMeetingIds`
-- and `countUpcomingMeetings`, the meetings of my projects that have not ended) found by seeking
-- the end time, not by reading every meeting of each project.
--
-- Why: the only index it could take was the project's (meetings_project_any), so both statements
-- read each of the project's meetings to check its end time; the upcoming ones are a few dozen,
-- the ended ones grow for years (57,000 in the million-item project of bench/search_bench.ts).
-- Here a project's live meetings are ordered by end time, and those that have not ended are one
-- range of it (bench/search.md, section I).
CREATE INDEX meetings_not_ended ON meetings (project_id, end_at) WHERE deleted_at IS NULL;
