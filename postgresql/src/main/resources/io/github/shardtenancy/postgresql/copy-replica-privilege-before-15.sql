-- Whether the current role may SET session_replication_role before PostgreSQL 15: only a superuser may.
SELECT current_setting('is_superuser') = 'on'
