-- The Java class of an existing trigger, by name. Parameter: trigger name (upper case).
SELECT JAVA_CLASS FROM INFORMATION_SCHEMA.TRIGGERS WHERE TRIGGER_NAME = ?
