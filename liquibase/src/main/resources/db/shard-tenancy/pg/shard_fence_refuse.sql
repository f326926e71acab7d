CREATE OR REPLACE FUNCTION shard_fence_refuse(p_what text) RETURNS void LANGUAGE plpgsql AS $fn$
BEGIN
  RAISE EXCEPTION USING ERRCODE = '42501',
    MESSAGE = 'shard fence: tenant ''' || coalesce(nullif(current_setting('shard_tenancy.tenant', true), ''), 'null')
      || ''' rejected on shard ''' || shard_fence_shard_id() || ''': ' || p_what || ' (directory version seen '
      || coalesce(nullif(current_setting('shard_tenancy.version', true), ''), '-1') || ', required -1)',
    HINT = CASE p_what
      WHEN 'SETTINGS_CHANGED' THEN 'The shard_tenancy.* settings are the library''s: SQL of a transaction may not set '
        || 'them (set_config, SET); bind the tenant with TenantContext.'
      WHEN 'TENANT_SWITCHED' THEN 'A transaction keeps the tenant it began with; run another tenant''s work in a '
        || 'transaction of its own.'
      ELSE 'A tenant-bound transaction may not run TRUNCATE or DDL; run it without a tenant (e.g. in a migration).'
    END;
END
$fn$
