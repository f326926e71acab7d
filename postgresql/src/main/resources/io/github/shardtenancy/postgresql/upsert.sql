-- Multi-row upsert: inserts the rows, updating a row whose primary key exists in place (never deleting it).
-- {table}, {columns}: the column list, {rows}: one (?, ?, ...) group per row, {keys}: the primary key columns,
-- {action}: NOTHING, or UPDATE SET c = EXCLUDED.c, ... for the other columns. OVERRIDING SYSTEM VALUE: identity
-- columns take the source's values, also those GENERATED ALWAYS.
-- https://www.postgresql.org/docs/current/sql-insert.html#SQL-ON-CONFLICT
INSERT INTO {table} ({columns}) OVERRIDING SYSTEM VALUE VALUES {rows} ON CONFLICT ({keys}) DO {action}
