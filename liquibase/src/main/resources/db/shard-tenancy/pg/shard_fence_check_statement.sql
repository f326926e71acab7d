CREATE OR REPLACE FUNCTION shard_fence_check_statement() RETURNS trigger LANGUAGE plpgsql AS $fn$
DECLARE
  v_tenant text := nullif(current_setting('shard_tenancy.tenant', true), '');
BEGIN
  IF v_tenant IS NOT NULL AND current_setting('shard_tenancy.fenced', true) IS DISTINCT FROM v_tenant THEN
    PERFORM shard_fence_check_row(v_tenant, NULL);
  END IF;
  RETURN NULL;
END
$fn$
