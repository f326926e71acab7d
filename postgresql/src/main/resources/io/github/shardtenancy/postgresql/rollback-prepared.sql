-- https://www.postgresql.org/docs/current/sql-rollback-prepared.html; {id} as in prepare.sql.
ROLLBACK PREPARED '{id}'
