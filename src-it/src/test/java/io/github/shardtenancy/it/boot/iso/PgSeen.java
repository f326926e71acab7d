package io.github.shardtenancy.it.boot.iso;

/**
 * What a transaction's statement saw of its PostgreSQL session.
 * @param backend the backend process id (the same id means the same pooled connection)
 * @param tenant the fence's tenant variable
 * @param isolation {@code transaction_isolation}, e.g. {@code serializable}
 * @param readOnly {@code transaction_read_only}, {@code on} or {@code off}
 */
public record PgSeen(int backend, String tenant, String isolation, String readOnly) {

	/** The query whose one row is read as a {@link PgSeen}. */
	public static final String QUERY = "select pg_backend_pid(), current_setting('shard_tenancy.tenant', true), "
			+ "current_setting('transaction_isolation'), current_setting('transaction_read_only')";

	static PgSeen of(Object[] row) {
		return new PgSeen(((Number) row[0]).intValue(), (String) row[1], (String) row[2], (String) row[3]);
	}

}
