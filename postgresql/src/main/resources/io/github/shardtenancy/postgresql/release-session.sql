-- Before a connection returns to its pool: releases the session-level advisory locks a statement took
-- (https://www.postgresql.org/docs/current/functions-admin.html#FUNCTIONS-ADVISORY-LOCKS); they would outlive the
-- transaction.
SELECT pg_advisory_unlock_all()
