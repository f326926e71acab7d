-- Before a reference write's shard transaction is prepared: its deferred constraints checked now, so that a refusal
-- comes before the write is recorded (https://www.postgresql.org/docs/current/sql-set-constraints.html).
SET CONSTRAINTS ALL IMMEDIATE
