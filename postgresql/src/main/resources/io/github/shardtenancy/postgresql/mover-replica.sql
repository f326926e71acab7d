-- Before the mover's writes into one table: session_replication_role = replica for the rest of the current
-- transaction (set_config(..., true): only it) if the role may set it ({privilege}) and the table allows it
-- ({refusal}, copy-replica-refusal.sql, whose parameter is the table name), else origin again (set only if it is not
-- origin already: a role without the privilege may not set it at all). Answers the setting now in force.
SELECT CASE
  WHEN {privilege} AND ({refusal}) IS NULL THEN set_config('session_replication_role', 'replica', true)
  WHEN current_setting('session_replication_role') <> 'origin'
    THEN set_config('session_replication_role', 'origin', true)
  ELSE 'origin'
END
