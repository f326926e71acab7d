DO $do$
DECLARE
  -- The functions after the first two have a search path of their own (the shard's schema, then pg_temp), so that no
  -- function, operator or table of the caller's search path (pg_temp comes first there for tables) stands in for the
  -- shard's.
  v_path text := format('SET search_path = %I, pg_temp', current_schema());
  -- The first two, which the row trigger and row-level security call, have none (a SET clause costs about two
  -- microseconds a call); every name in them is schema-qualified instead. They read the secret like this:
  v_secret text := format('DECLARE v_secret pg_catalog.text; BEGIN SELECT k.secret INTO v_secret '
    || 'FROM %I.shard_fence_key k WHERE k.id OPERATOR(pg_catalog.=) 1; ', current_schema());
  -- The seal of the current transaction's settings: a digest of the shard's secret, the backend, the start of the
  -- transaction (to the microsecond, in UTC whatever the session's TimeZone) and the settings the fence trusts, each
  -- quoted so that no value can shift into the next.
  v_seal text := $e$pg_catalog.md5(pg_catalog.concat_ws('|', v_secret, pg_catalog.pg_backend_pid(),
      pg_catalog.to_char(pg_catalog.timezone('UTC', pg_catalog.now()), 'YYYYMMDDHH24MISSUS'),
      pg_catalog.quote_literal(coalesce(pg_catalog.current_setting('shard_tenancy.tenant', true), '')),
      pg_catalog.quote_literal(coalesce(pg_catalog.current_setting('shard_tenancy.version', true), '')),
      pg_catalog.quote_literal(coalesce(pg_catalog.current_setting('shard_tenancy.fenced', true), '')),
      pg_catalog.quote_literal(coalesce(pg_catalog.current_setting('shard_tenancy.capture', true), '')),
      pg_catalog.quote_literal(coalesce(pg_catalog.current_setting('shard_tenancy.role', true), ''))))$e$;
BEGIN
  -- The seal of the settings as they are now; called only by shard_fence_begin, shard_fence_mover and
  -- shard_fence_maintenance (EXECUTE revoked from PUBLIC), after they set them. PL/pgSQL, here and in the next one:
  -- PostgreSQL plans a SQL function's body again in every query that calls it (unless it inlines it, which it never
  -- does for SECURITY DEFINER), PL/pgSQL keeps its plans for the session.
  EXECUTE format('CREATE OR REPLACE FUNCTION %I.shard_fence_seal() RETURNS pg_catalog.text LANGUAGE plpgsql STABLE '
    || 'SECURITY DEFINER AS %L', current_schema(), v_secret || format('RETURN %s; END', v_seal));
  EXECUTE format('REVOKE ALL ON FUNCTION %I.shard_fence_seal() FROM PUBLIC', current_schema());
  -- Whether the settings are the ones the library's functions set in this transaction: shard_tenancy.seal matches.
  -- A set_config of the application's SQL (any of the settings, or the seal itself) makes it false.
  EXECUTE format('CREATE OR REPLACE FUNCTION %I.shard_fence_sealed() RETURNS pg_catalog.bool LANGUAGE plpgsql STABLE '
    || 'SECURITY DEFINER AS %L', current_schema(), v_secret || format('RETURN coalesce(pg_catalog.texteq('
      || 'pg_catalog.current_setting(''shard_tenancy.seal'', true), %s), false); END', v_seal));
  -- Whether the current transaction is a tenant's: begun by shard_fence_begin, as its seal tells or, if its SQL
  -- cleared the settings, the tenant's fence lock that shard_fence_begin took shared (an advisory lock of the
  -- transaction, which only its end releases; the mover's and the freeze's are exclusive).
  EXECUTE format('CREATE OR REPLACE FUNCTION %I.shard_fence_tenant_transaction() RETURNS boolean LANGUAGE sql STABLE '
    || '%s AS %L', current_schema(), v_path, 'SELECT (nullif(current_setting(''shard_tenancy.tenant'', true), '''') '
      || 'IS NOT NULL AND coalesce(current_setting(''shard_tenancy.role'', true), '''') = '''' '
      || 'AND shard_fence_sealed()) OR EXISTS (SELECT 1 FROM pg_locks l WHERE l.locktype = ''advisory'' '
      || 'AND l.pid = pg_backend_pid() AND l.classid = 1936225382 AND l.objsubid = 2 AND l.mode = ''ShareLock'')');
  -- Whether TRUNCATE and DDL are refused: a tenant is bound (by the setting, sealed or not) or the transaction is a
  -- tenant's, unless it is the sealed mover's.
  EXECUTE format('CREATE OR REPLACE FUNCTION %I.shard_fence_ddl_refused() RETURNS boolean LANGUAGE sql STABLE %s AS %L',
    current_schema(), v_path, 'SELECT NOT (current_setting(''shard_tenancy.role'', true) IS NOT DISTINCT FROM '
      || '''mover'' AND shard_fence_sealed()) AND (nullif(current_setting(''shard_tenancy.tenant'', true), '''') '
      || 'IS NOT NULL OR shard_fence_tenant_transaction())');
END
$do$
