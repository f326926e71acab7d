package io.github.shardtenancy;

/**
 * The connection to the tenant's shard broke while the transaction ran (the server restarted or crashed, the backend
 * was terminated, the network failed: SQLSTATE class {@code 08} or {@code 57P01}..{@code 57P03}). The server rolls
 * back a transaction whose connection it loses, so the work did not happen, <em>unless the connection broke while the
 * commit itself was on the wire</em>: then the transaction may have committed, and nobody can tell from this side.
 *
 * <p>It is therefore not retried automatically: run the work again only if it is idempotent, or after checking whether
 * it took effect (for example by a key the caller chose). Raised by {@code ShardTenancyRetry} in place of the
 * driver's or Hibernate's exception, which is the cause; carries the tenant and, where the router knows it, the
 * shard and the directory version of the route.
 */
public class ShardConnectionLostException extends ShardTenancyException {

	/**
	 * @param tenantId the tenant of the transaction, or {@code null}
	 * @param shardId the shard the tenant was routed to, or {@code null} if unknown
	 * @param directoryVersion the directory version of the route, or {@code -1}
	 * @param cause the failure that reported the lost connection
	 */
	public ShardConnectionLostException(String tenantId, String shardId, long directoryVersion, Throwable cause) {
		super("Connection to shard " + (shardId != null ? "'" + shardId + "'" : "(unknown)") + " lost during a "
				+ "transaction of tenant " + quote(tenantId) + " (directory version " + directoryVersion
				+ "); it was rolled back unless the connection broke during the commit, in which case its outcome is "
				+ "unknown: " + (cause != null ? cause.getMessage() : "unknown cause"), tenantId, shardId,
				directoryVersion, cause);
	}

	/**
	 * @param failure any throwable, may be {@code null}
	 * @return whether its cause chain holds an {@link java.sql.SQLException} reporting a lost or refused connection
	 * (SQLSTATE class {@code 08}, or {@code 57P01}, {@code 57P02}, {@code 57P03})
	 */
	public static boolean isConnectionFailure(Throwable failure) {
		for (Throwable t = failure; t != null; t = (t.getCause() == t ? null : t.getCause())) {
			if (t instanceof java.sql.SQLException sql) {
				for (java.sql.SQLException s = sql; s != null; s = s.getNextException()) {
					String state = s.getSQLState();
					if (state != null && (state.startsWith("08") || state.equals("57P01") || state.equals("57P02")
							|| state.equals("57P03"))) {
						return true;
					}
				}
			}
		}
		return false;
	}

}
