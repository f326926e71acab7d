-- The tenant column's default: the bound tenant (NULL when none is bound). {table}, {column}: upper case.
ALTER TABLE {table} ALTER COLUMN {column} SET DEFAULT NULLIF(@SHARD_TENANT, '')
