-- The planner's statistics of a table the mover has just filled (https://www.postgresql.org/docs/current/sql-analyze.html).
-- {table}: the table.
ANALYZE {table}
