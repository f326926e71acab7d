package io.github.shardtenancy;

/**
 * A tenant id is {@code null}, blank, longer than {@value TenantIds#MAX_LENGTH} characters, or contains a character
 * other than ASCII letters, digits and {@code . _ : -}. Raised before any connection is used.
 */
public class InvalidTenantIdException extends ShardTenancyException {

	/**
	 * @param tenantId the rejected value, possibly {@code null}
	 * @param reason why it was rejected
	 */
	public InvalidTenantIdException(String tenantId, String reason) {
		super("Invalid tenant id " + quote(tenantId) + ": " + reason, null, null, -1, null);
	}

}
