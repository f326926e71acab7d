CREATE OR REPLACE FUNCTION shard_fence_begin(p_tenant text, p_version bigint) RETURNS void LANGUAGE plpgsql AS $fn$
DECLARE
  v_state text;
  v_min bigint;
  v_capture boolean;
  v_set text;
BEGIN
  -- A transaction the library's functions already sealed for another tenant (its tenant's, or the mover's or the
  -- maintenance mark): the statement that calls this is SQL of that transaction, refused (42501, not retried).
  IF nullif(current_setting('shard_tenancy.tenant', true), '') IS DISTINCT FROM p_tenant
      AND coalesce(current_setting('shard_tenancy.seal', true), '') <> '' AND shard_fence_sealed() THEN
    PERFORM shard_fence_refuse('TENANT_SWITCHED');
  END IF;
  -- The tenant's fence lock, shared, until the transaction ends (same key as shard_fence_lock). Try, never wait: a
  -- freeze that holds the lock, or waits for it (PostgreSQL queues a new request behind a waiting conflicting one, so
  -- the try fails), rejects this transaction instead of queueing it behind the freeze. Waiting would let a nested
  -- transaction of the tenant (REQUIRES_NEW) wait for a freeze that waits for its outer transaction: a deadlock the
  -- database cannot see.
  IF NOT pg_try_advisory_xact_lock_shared(1936225382, hashtext(p_tenant)) THEN
    SELECT min_version INTO v_min FROM shard_fence WHERE tenant_id = p_tenant;
    PERFORM shard_fence_reject(p_tenant, 'FROZEN', p_version, coalesce(v_min, -1));
  END IF;
  -- In READ COMMITTED this query takes a new snapshot (the function is volatile), so it sees every fence change
  -- committed before the lock was granted. In REPEATABLE READ and SERIALIZABLE the snapshot may be older than the
  -- lock: FOR SHARE then raises a serialization failure (40001) if the fence row changed since the snapshot
  -- (https://www.postgresql.org/docs/current/transaction-iso.html#XACT-REPEATABLE-READ); a change of the capture
  -- updates the fence row's captured column (shard_fence_capture_sync), so it is not missed either. A read-only
  -- transaction cannot lock rows, and needs not: it writes nothing (and FROZEN lets it read).
  -- The variables are set by the same query, from the row it reads (one statement fewer per transaction); a rejection
  -- below raises an error, which ends the transaction (or the subtransaction) and undoes them. fenced = the tenant
  -- lets the row trigger accept the tenant's rows at once (OWNED, not captured); capture = the tenant sends them to
  -- the slow path, which logs their keys (OWNED, captured); neither (FROZEN): the slow path rejects every write.
  IF current_setting('transaction_isolation') IN ('read committed', 'read uncommitted')
      OR current_setting('transaction_read_only') = 'on' THEN
    SELECT f.state, f.min_version, f.captured, set_config('shard_tenancy.tenant', p_tenant, true)
        || set_config('shard_tenancy.version', p_version::text, true)
        || set_config('shard_tenancy.fenced', CASE WHEN f.state = 'OWNED' AND NOT f.captured THEN p_tenant ELSE '' END,
          true)
      INTO v_state, v_min, v_capture, v_set FROM shard_fence f WHERE f.tenant_id = p_tenant;
  ELSE
    SELECT f.state, f.min_version, f.captured, set_config('shard_tenancy.tenant', p_tenant, true)
        || set_config('shard_tenancy.version', p_version::text, true)
        || set_config('shard_tenancy.fenced', CASE WHEN f.state = 'OWNED' AND NOT f.captured THEN p_tenant ELSE '' END,
          true)
      INTO v_state, v_min, v_capture, v_set FROM shard_fence f WHERE f.tenant_id = p_tenant FOR SHARE OF f;
  END IF;
  -- The common case first, in one test: OWNED (or FROZEN, which lets the transaction read), version not stale. No row
  -- (NULL) fails it too.
  IF NOT coalesce(v_state IN ('OWNED', 'FROZEN') AND p_version >= v_min, false) THEN
    IF v_state IS NULL THEN
      PERFORM shard_fence_reject(p_tenant, 'NOT_OWNED', p_version, -1);
    END IF;
    IF v_state NOT IN ('OWNED', 'FROZEN') THEN
      PERFORM shard_fence_reject(p_tenant, v_state, p_version, v_min);
    END IF;
    PERFORM shard_fence_reject(p_tenant, 'STALE', p_version, v_min);
  END IF;
  -- Already empty in a transaction's first statement, which this is; set (or cleared) in one statement, and only if the
  -- tenant is captured or an earlier call of this transaction set one of them (unset reads as NULL, which fails the
  -- test like '').
  IF v_capture OR current_setting('shard_tenancy.capture', true) <> ''
      OR current_setting('shard_tenancy.role', true) <> '' THEN
    PERFORM set_config('shard_tenancy.capture', CASE WHEN v_state = 'OWNED' AND v_capture THEN p_tenant ELSE '' END,
      true), set_config('shard_tenancy.role', '', true);
  END IF;
  -- The seal of the settings just set (shard_fence_seal.sql): what the row trigger and row-level security trust.
  PERFORM set_config('shard_tenancy.seal', shard_fence_seal(), true);
END
$fn$
