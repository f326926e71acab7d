-- The foreign keys of a table (the referencing side): name, referenced table and both column lists, quoted.
-- Parameter: the table name.
SELECT k.conname,
  k.confrelid::regclass::text,
  (SELECT string_agg('c.' || quote_ident(a.attname), ', ' ORDER BY u.i) FROM unnest(k.conkey) WITH ORDINALITY u(n, i)
    JOIN pg_attribute a ON a.attrelid = k.conrelid AND a.attnum = u.n),
  (SELECT string_agg('p.' || quote_ident(a.attname), ', ' ORDER BY u.i) FROM unnest(k.confkey) WITH ORDINALITY u(n, i)
    JOIN pg_attribute a ON a.attrelid = k.confrelid AND a.attnum = u.n)
FROM pg_constraint k
WHERE k.conrelid = to_regclass(?) AND k.contype = 'f'
ORDER BY k.conname
