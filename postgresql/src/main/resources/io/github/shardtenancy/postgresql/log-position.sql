-- The insert position of the write-ahead log (not the write position: with synchronous_commit off a commit record may
-- be inserted but not written yet), in bytes; pg_lsn minus pg_lsn is numeric.
SELECT (pg_current_wal_insert_lsn() - '0/0'::pg_lsn)::bigint
