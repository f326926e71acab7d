-- Takes the tenant's fence lock exclusive in the JVM that runs the database (over TCP). Parameter: tenant id.
CALL SHARD_FENCE_LOCK(?)
