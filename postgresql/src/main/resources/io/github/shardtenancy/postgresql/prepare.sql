-- The first phase of a two-phase commit (https://www.postgresql.org/docs/current/sql-prepare-transaction.html);
-- {id} is replaced by the global transaction id, which the library builds from letters, digits, '_' and ':'.
PREPARE TRANSACTION '{id}'
