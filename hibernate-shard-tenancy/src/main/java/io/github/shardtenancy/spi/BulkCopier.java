package io.github.shardtenancy.spi;

import java.sql.Connection;
import java.sql.SQLException;

/**
 * A faster way to copy a tenant's rows between two shards of one kind of database, used by the online mover's bulk
 * copy step (for example PostgreSQL's {@code COPY}, in {@code hibernate-shard-tenancy-postgresql}). Optional:
 * implementations are found with {@link java.util.ServiceLoader}; without one that {@link #supports} both
 * connections, the mover copies with multi-row {@code INSERT}s. The core library depends on no driver for this.
 *
 * <p>Implementations must be stateless and thread-safe.
 */
public interface BulkCopier {

	/** Called after each batch has been written to the target, to commit it (and pause, report progress). */
	@FunctionalInterface
	interface BatchWritten {

		/**
		 * @param rowsSoFar rows written to the target so far by this copy
		 * @throws SQLException if the commit fails; the copy stops with it
		 */
		void batchWritten(long rowsSoFar) throws SQLException;

	}

	/**
	 * @param source a connection to the source shard
	 * @param target a connection to the target shard
	 * @return whether this copier can copy between them (e.g. both are PostgreSQL connections of its driver)
	 * @throws SQLException on a database error
	 */
	boolean supports(Connection source, Connection target) throws SQLException;

	/**
	 * Streams the rows of a query on the source, in the source connection's current transaction (the mover's snapshot),
	 * into a table of the target, in the target connection's current transaction, calling {@code batchWritten} after
	 * every {@code batchSize} rows and after the last ones (which commits the target's transaction and opens the next).
	 * @param source the source connection, in a transaction
	 * @param select a complete {@code SELECT} without parameters (its literals are validated tenant ids)
	 * @param target the target connection, in a transaction marked as the mover's
	 * @param table the target table, a plain SQL identifier
	 * @param columnList the target columns, comma-separated, in the order of the query's columns
	 * @param batchSize rows per batch, {@code >= 1}
	 * @param batchWritten called after each batch
	 * @return rows copied
	 * @throws SQLException on a database error, the first one (a failure to cancel what the copy started belongs in
	 * its suppressed exceptions); the caller rolls both transactions back where it still can and discards both
	 * connections, never returning them to their pools, so they need not be left usable
	 */
	long copy(Connection source, String select, Connection target, String table, String columnList, int batchSize,
			BatchWritten batchWritten) throws SQLException;

}
