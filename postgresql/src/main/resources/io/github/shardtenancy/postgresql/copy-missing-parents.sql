-- After copy-lock-parents: the copied rows whose referenced row is missing (MATCH SIMPLE: a row with a NULL in its
-- key references nothing).
SELECT count(*) FROM ({rows}) c WHERE {childNotNull} AND NOT EXISTS (SELECT 1 FROM {parent} p WHERE {join})
