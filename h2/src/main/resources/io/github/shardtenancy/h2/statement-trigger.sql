-- The fence trigger class as a statement trigger on UPDATE and DELETE: an UPDATE or DELETE that matches no row
-- (the tenant's rows cleaned away after a move) is rejected too. {trigger}, {table}, {class}.
CREATE TRIGGER IF NOT EXISTS {trigger} BEFORE UPDATE, DELETE ON {table} CALL '{class}'
