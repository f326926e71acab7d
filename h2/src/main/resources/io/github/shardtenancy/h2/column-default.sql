-- A column's default, and whether H2 fills it itself (identity or generated); names compared in upper case.
-- Parameters: schema (NULL: the current one), table, column (upper case).
SELECT COLUMN_DEFAULT, IS_IDENTITY = 'YES' OR IS_GENERATED = 'ALWAYS' FROM INFORMATION_SCHEMA.COLUMNS
WHERE UPPER(TABLE_SCHEMA) = UPPER(COALESCE(?, CURRENT_SCHEMA)) AND UPPER(TABLE_NAME) = ? AND UPPER(COLUMN_NAME) = ?
