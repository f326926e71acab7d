CREATE OR REPLACE FUNCTION shard_fence_refuse_ddl() RETURNS event_trigger LANGUAGE plpgsql AS $fn$
BEGIN
  IF shard_fence_ddl_refused()
      AND NOT (TG_TAG = 'CREATE TABLE'
        AND current_query() ~* '^\s*create\s+((local|global)\s+)?temp(orary)?\s+table\s') THEN
    PERFORM shard_fence_refuse('DDL_REFUSED');
  END IF;
END
$fn$
