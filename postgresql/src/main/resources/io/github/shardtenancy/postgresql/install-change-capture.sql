-- Registers a table for change capture and (re)creates its AFTER row trigger (shard-changes.xml).
-- Parameters: table, tenant column.
SELECT shard_change_install(?, ?)
