-- A tenant's row count and the sum of a 64-bit hash (hashtextextended) of each row's text form, modulo the largest
-- prime below 2^63, so that the sum cannot overflow; computed in the database, one row sent. Both shards of a move
-- must compute it the same way (the same major version).
-- {columns}: the column list, {table}, {tenantColumn}. Parameter: tenant id.
SELECT COUNT(*), COALESCE(SUM(hashtextextended(ROW({columns})::text, 0)::numeric) % 9223372036854775783, 0)::bigint
FROM {table} WHERE {tenantColumn} = ?
