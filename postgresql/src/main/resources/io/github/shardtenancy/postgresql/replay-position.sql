-- The replayed position of a hot standby, in bytes; -1 once it is no longer in recovery (promoted).
SELECT CASE WHEN pg_is_in_recovery() THEN coalesce((pg_last_wal_replay_lsn() - '0/0'::pg_lsn)::bigint, 0) ELSE -1 END
