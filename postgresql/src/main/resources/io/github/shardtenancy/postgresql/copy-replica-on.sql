-- Turns the target's ORIGIN triggers off until the end of the current transaction (only it): the copier's COPY runs
-- as a replication apply does (https://www.postgresql.org/docs/current/runtime-config-client.html).
SELECT set_config('session_replication_role', 'replica', true)
