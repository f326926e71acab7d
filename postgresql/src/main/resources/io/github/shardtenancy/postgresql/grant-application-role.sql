-- The statements that give the application's role of a shard what it needs on the tables its owner's migrations
-- created, one row each, run by the owner after each migration: USAGE on the current schema, SELECT, INSERT, UPDATE,
-- DELETE on every table and USAGE, SELECT on every sequence of it; nothing on the fence's secret (with it, SQL could
-- seal settings of its own: docs/postgresql.md, the seal).
-- Parameters: the application's role (text), four times.
SELECT format('GRANT USAGE ON SCHEMA %I TO %I', current_schema(), ?::text)
UNION ALL
SELECT format('GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA %I TO %I', current_schema(), ?::text)
UNION ALL
SELECT format('GRANT USAGE, SELECT ON ALL SEQUENCES IN SCHEMA %I TO %I', current_schema(), ?::text)
UNION ALL
SELECT format('REVOKE ALL ON shard_fence_key FROM %I', ?::text) WHERE to_regclass('shard_fence_key') IS NOT NULL
