-- A list of primary keys as rows typed as the table's key columns, from one text array per key column (the values of
-- one key at the same index in each): the text read by each type's input function, as COPY's text format and an
-- untyped parameter are (https://www.postgresql.org/docs/current/sql-createcast.html, automatic I/O conversion casts).
-- {columns}: k.c1::type1, k.c2::type2, ...; {arrays}: ?::text[], ?::text[], ...; {names}: c1, c2, ...
SELECT {columns} FROM unnest({arrays}) AS k({names})
