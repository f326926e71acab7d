-- The type of each primary key column, as a cast names it (format_type: with its modifier, schema-qualified and quoted
-- where the search path needs it), in key order; a column not found answers no row for it.
-- Parameters: the key columns' names (text[]), in key order; the table (optionally schema-qualified).
SELECT format_type(a.atttypid, a.atttypmod)
FROM unnest(?::text[]) WITH ORDINALITY AS k(name, n)
JOIN pg_attribute a ON a.attrelid = to_regclass(?) AND a.attname = k.name AND NOT a.attisdropped
ORDER BY k.n
