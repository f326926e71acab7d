-- The first statement of a read-only transaction with no tenant bound: releases the session-level advisory locks an
-- earlier borrower left, clears for this transaction any session-level value of the library's variables (which
-- shard_fence_begin, shard_fence_mover and shard_fence_maintenance only ever set for their transaction), and takes
-- the reference role for the transaction (SET LOCAL ROLE; 'none' keeps the session's role).
-- Parameter: the role (text).
SELECT pg_advisory_unlock_all(), set_config('shard_tenancy.tenant', '', true),
  set_config('shard_tenancy.version', '', true), set_config('shard_tenancy.role', '', true),
  set_config('shard_tenancy.fenced', '', true), set_config('shard_tenancy.capture', '', true),
  set_config('role', ?, true)
