-- The relations outside the system schemas that the reference role may do anything with but that are not reference
-- tables (granted to it, to a role it belongs to, or to PUBLIC), one row each: what it may, and the relation.
-- Parameters: the role's name (text), the reference tables' names (text[]).
WITH role AS (SELECT ?::text AS name),
ref AS (SELECT to_regclass(n.name) AS oid FROM unnest(?::text[]) AS n(name))
SELECT c.oid::regclass::text,
  concat_ws(', ', CASE WHEN has_any_column_privilege(role.name, c.oid, 'SELECT') THEN 'read' END,
    CASE WHEN has_table_privilege(role.name, c.oid, 'DELETE,TRUNCATE')
      OR has_any_column_privilege(role.name, c.oid, 'INSERT,UPDATE') THEN 'write' END,
    CASE WHEN has_table_privilege(role.name, c.oid, 'TRIGGER')
      OR has_any_column_privilege(role.name, c.oid, 'REFERENCES') THEN 'reference or trigger' END)
FROM role, pg_class c JOIN pg_namespace s ON s.oid = c.relnamespace
WHERE c.relkind IN ('r', 'p', 'v', 'm', 'f')
  AND s.nspname NOT IN ('pg_catalog', 'information_schema') AND s.nspname NOT LIKE 'pg\_toast%'
  AND c.oid NOT IN (SELECT oid FROM ref WHERE oid IS NOT NULL)
  AND (has_table_privilege(role.name, c.oid, 'DELETE,TRUNCATE,TRIGGER')
    OR has_any_column_privilege(role.name, c.oid, 'SELECT,INSERT,UPDATE,REFERENCES'))
ORDER BY 1
