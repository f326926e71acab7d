-- Drops a trigger. {trigger}.
DROP TRIGGER IF EXISTS {trigger}
