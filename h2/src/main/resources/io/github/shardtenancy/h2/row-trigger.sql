-- A row trigger on every write of a tenant table. {trigger}, {timing} (BEFORE or AFTER), {table}, {class}.
CREATE TRIGGER IF NOT EXISTS {trigger} {timing} INSERT, UPDATE, DELETE ON {table} FOR EACH ROW CALL '{class}'
