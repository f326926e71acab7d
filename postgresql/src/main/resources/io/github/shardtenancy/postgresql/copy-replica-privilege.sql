-- Whether the current role may SET session_replication_role (PostgreSQL 15+: superuser or GRANT SET ON PARAMETER,
-- https://www.postgresql.org/docs/current/sql-grant.html).
SELECT has_parameter_privilege('session_replication_role', 'SET')
