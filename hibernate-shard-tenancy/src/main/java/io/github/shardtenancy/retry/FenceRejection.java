package io.github.shardtenancy.retry;

import java.sql.SQLException;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A shard fence rejection, recognised in any exception's cause chain: which tenant was rejected, on which shard,
 * why, and with which directory versions. {@link #find(Throwable)} is the classification the retry uses (see
 * {@link ShardTenancyRetry}); applications may use it too, for example to count rejections by reason.
 *
 * <p>Every fence (H2 and PL/pgSQL alike) raises SQLSTATE {@code 40001} with a message of this exact form, which is
 * what distinguishes it from a genuine serialization failure:
 * <pre>
 * shard fence: tenant 'acme' rejected on shard 'shard-1': MOVED (directory version seen 30, required 42)
 * </pre>
 * The reason is one of {@code NOT_OWNED}, {@code MOVED}, {@code INCOMING}, {@code STALE}, {@code FROZEN},
 * {@code FOREIGN_ROW} or {@code NO_TENANT}. SQLSTATE 40001 is {@code serialization_failure}
 * (<a href="https://www.postgresql.org/docs/current/errcodes-appendix.html">PostgreSQL error codes</a>), a state that
 * drivers and frameworks already treat as retryable.
 *
 * <p>Immutable and thread-safe; the static methods are stateless.
 *
 * @param tenantId the rejected tenant; never {@code null}
 * @param shardId the shard that rejected it; never {@code null}
 * @param reason why, as above; never {@code null}
 * @param seenVersion the directory version the work was routed with ({@code -1} if none was set)
 * @param requiredVersion the minimum version the fence accepts for this tenant ({@code -1} if it has none)
 * @param sqlException the exception that carried it; never {@code null}
 */
public record FenceRejection(String tenantId, String shardId, String reason, long seenVersion, long requiredVersion,
		SQLException sqlException) {

	/** SQLSTATE {@code serialization_failure}. */
	public static final String SQLSTATE = "40001";

	/** The marker every fence message starts with. */
	public static final String MARKER = "shard fence:";

	private static final Pattern MESSAGE = Pattern.compile("shard fence: tenant '([^']*)' rejected on shard '([^']*)': "
			+ "([A-Z_]+) \\(directory version seen (-?\\d+), required (-?\\d+)\\)");

	/** @return whether this rejection says the tenant is frozen (the write should wait for the flip) */
	public boolean isFrozen() {
		return "FROZEN".equals(this.reason);
	}

	/**
	 * @return whether this rejection comes from a move that is about to finish: the tenant is FROZEN on its source,
	 * or the route already names the target whose fence the move has not opened yet (INCOMING). Either clears by
	 * itself within the freeze window, so a retry should wait for it rather than count it against a small budget.
	 */
	public boolean isMoveInProgress() {
		return isFrozen() || "INCOMING".equals(this.reason);
	}

	/**
	 * Looks for a fence rejection in a cause chain.
	 * @param failure any throwable, may be {@code null}
	 * @return the first fence rejection found (the {@link SQLException#getNextException() next exceptions} of every
	 * {@link SQLException} in the chain are searched too), or empty; never {@code null}
	 */
	public static Optional<FenceRejection> find(Throwable failure) {
		for (Throwable t = failure; t != null; t = next(t)) {
			if (t instanceof SQLException sql) {
				for (SQLException s = sql; s != null; s = s.getNextException()) {
					Optional<FenceRejection> found = parse(s);
					if (found.isPresent()) {
						return found;
					}
				}
			}
		}
		return Optional.empty();
	}

	/**
	 * @param failure any throwable, may be {@code null}
	 * @return the first {@link SQLException} in the chain whose SQLState is 40001, fence or not, or empty; never
	 * {@code null}
	 */
	public static Optional<SQLException> findSerializationFailure(Throwable failure) {
		for (Throwable t = failure; t != null; t = next(t)) {
			if (t instanceof SQLException sql && SQLSTATE.equals(sql.getSQLState())) {
				return Optional.of(sql);
			}
		}
		return Optional.empty();
	}

	private static Optional<FenceRejection> parse(SQLException ex) {
		if (!SQLSTATE.equals(ex.getSQLState()) || ex.getMessage() == null) {
			return Optional.empty();
		}
		Matcher m = MESSAGE.matcher(ex.getMessage());
		if (!m.find()) {
			return Optional.empty();
		}
		return Optional.of(new FenceRejection(m.group(1), m.group(2), m.group(3), Long.parseLong(m.group(4)),
				Long.parseLong(m.group(5)), ex));
	}

	private static Throwable next(Throwable t) {
		Throwable cause = t.getCause();
		return cause == t ? null : cause;
	}

}
