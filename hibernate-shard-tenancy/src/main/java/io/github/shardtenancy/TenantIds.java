package io.github.shardtenancy;

/**
 * The rule for tenant ids: 1 to {@value #MAX_LENGTH} characters, each an ASCII letter, digit or one of {@code . _ : -}.
 * The rule keeps every id safe in SQL, logs, HTTP headers and metric tags; ids are nevertheless always bound as
 * parameters, never concatenated into SQL. Stateless and thread-safe.
 */
public final class TenantIds {

	/** The longest accepted tenant id, in characters. Matches the directory's {@code tenant_id} column. */
	public static final int MAX_LENGTH = 64;

	/**
	 * What Hibernate's tenant resolver answers when no tenant is bound: a value that breaks the tenant id rule, so it
	 * can never name a tenant, and a session opened with it is refused a shard connection.
	 */
	public static final String NO_TENANT = "<no tenant bound>";

	private TenantIds() {
	}

	/**
	 * Checks a tenant id.
	 * @param tenantId the candidate, may be {@code null}
	 * @return the same id, for chaining
	 * @throws InvalidTenantIdException if it is null, empty, too long or has a character outside the rule
	 */
	public static String requireValid(String tenantId) {
		if (tenantId == null) {
			throw new InvalidTenantIdException(null, "it is null");
		}
		int length = tenantId.length();
		if (length == 0) {
			throw new InvalidTenantIdException(tenantId, "it is empty");
		}
		if (length > MAX_LENGTH) {
			throw new InvalidTenantIdException(tenantId, "it has " + length + " characters, at most " + MAX_LENGTH
					+ " are allowed");
		}
		for (int i = 0; i < length; i++) {
			if (!allowed(tenantId.charAt(i))) {
				throw new InvalidTenantIdException(tenantId, "character " + (i + 1)
						+ " is not an ASCII letter, digit or one of . _ : -");
			}
		}
		return tenantId;
	}

	/**
	 * @param tenantId the candidate, may be {@code null}
	 * @return whether {@link #requireValid(String)} would accept it
	 */
	public static boolean isValid(String tenantId) {
		if (tenantId == null || tenantId.isEmpty() || tenantId.length() > MAX_LENGTH) {
			return false;
		}
		for (int i = 0; i < tenantId.length(); i++) {
			if (!allowed(tenantId.charAt(i))) {
				return false;
			}
		}
		return true;
	}

	private static boolean allowed(char c) {
		return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' || c == '_'
				|| c == ':' || c == '-';
	}

}
