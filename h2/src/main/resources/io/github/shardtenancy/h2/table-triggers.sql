-- The triggers of one table and the Java class each runs (NULL for a trigger defined by source code).
-- Parameters: schema (upper case, or NULL for any), table name (upper case).
SELECT DISTINCT TRIGGER_NAME, JAVA_CLASS FROM INFORMATION_SCHEMA.TRIGGERS
WHERE (? IS NULL OR EVENT_OBJECT_SCHEMA = ?) AND EVENT_OBJECT_TABLE = ?
ORDER BY TRIGGER_NAME
