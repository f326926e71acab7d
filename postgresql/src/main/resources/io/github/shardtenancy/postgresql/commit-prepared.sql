-- https://www.postgresql.org/docs/current/sql-commit-prepared.html; {id} as in prepare.sql.
COMMIT PREPARED '{id}'
