package io.github.shardtenancy;

/**
 * A statement that acts on whole tables rather than on one tenant's rows was sent on a tenant's shard connection:
 * {@code TRUNCATE}, or DDL ({@code CREATE}, {@code ALTER}, {@code DROP}, {@code GRANT}, {@code REVOKE},
 * {@code COMMENT}). On a shard that holds several tenants such a statement would empty or change every tenant's
 * table, so it is refused before it reaches the database and nothing runs. Temporary tables ({@code CREATE TEMPORARY
 * TABLE}, {@code CREATE LOCAL TEMPORARY TABLE}) are allowed. Run schema changes through the shard migrations (Liquibase
 * per shard) and delete a tenant's rows with {@code DELETE}, which the fence checks.
 *
 * <p>Not retried: running the statement again would be refused again. Carries the tenant, the shard and the
 * directory version of the connection.
 */
public class CrossTenantStatementException extends ShardTenancyException {

	private final String statement;

	/**
	 * @param tenantId the tenant the connection belongs to
	 * @param shardId the connection's shard
	 * @param directoryVersion the directory version the connection was routed with
	 * @param statement the refused statement, possibly shortened; never {@code null}
	 */
	public CrossTenantStatementException(String tenantId, String shardId, long directoryVersion, String statement) {
		super("Statement refused on a connection of tenant " + quote(tenantId) + " on shard '" + shardId
				+ "' (directory version " + directoryVersion + "): '" + statement + "' acts on whole tables, and the "
				+ "shard holds other tenants' rows too. Change the schema through the shard migrations and delete a "
				+ "tenant's rows with DELETE.", tenantId, shardId, directoryVersion, null);
		this.statement = statement;
	}

	/** @return the refused statement, possibly shortened; never {@code null} */
	public String statement() {
		return this.statement;
	}

}
