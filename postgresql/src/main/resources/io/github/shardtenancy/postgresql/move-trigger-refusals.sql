-- The triggers of the application on tenant tables that a move's writes could fire: every trigger on INSERT, UPDATE
-- or DELETE (tgtype bits 4, 8, 16) that is not internal, not disabled and not the fence's row trigger
-- (shard_fence_write_check; the TRUNCATE refusal fires on TRUNCATE only, which the mover never runs).
-- Parameter: the tenant tables' names (text[]). Answers table, trigger, tgenabled (O origin, R replica, A always).
SELECT x.name, t.tgname, t.tgenabled
FROM unnest(?::text[]) x(name)
JOIN pg_trigger t ON t.tgrelid = to_regclass(x.name)
WHERE NOT t.tgisinternal AND t.tgenabled <> 'D' AND (t.tgtype::int & 28) <> 0
  AND t.tgname <> 'shard_fence_write_check'
ORDER BY x.name, t.tgname
