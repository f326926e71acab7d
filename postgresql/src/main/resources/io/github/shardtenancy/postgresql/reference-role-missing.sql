-- What the reference role lacks to read the reference tables present on the shard, one row each with the statement
-- that grants it: USAGE on the table's schema, SELECT on the table.
-- Parameters: the reference tables' names (text[]), the role's name (text).
WITH t AS (
  SELECT DISTINCT c.oid, c.relnamespace FROM unnest(?::text[]) AS n(name) JOIN pg_class c ON c.oid = to_regclass(n.name)
), role AS (SELECT ?::text AS name)
SELECT format('GRANT USAGE ON SCHEMA %I TO %I', s.nspname, role.name)
  FROM role, (SELECT DISTINCT relnamespace FROM t) u JOIN pg_namespace s ON s.oid = u.relnamespace
  WHERE NOT has_schema_privilege(role.name, s.oid, 'USAGE')
UNION ALL
SELECT format('GRANT SELECT ON %s TO %I', t.oid::regclass, role.name)
  FROM role, t
  WHERE NOT has_table_privilege(role.name, t.oid, 'SELECT')
