-- The transactions prepared in this database whose id starts with the prefix
-- (https://www.postgresql.org/docs/current/view-pg-prepared-xacts.html).
SELECT gid FROM pg_prepared_xacts WHERE database = current_database() AND starts_with(gid, ?)
