package io.github.shardtenancy.boot.web;

import java.util.Objects;

import io.github.shardtenancy.ShardTenancyException;
import org.jspecify.annotations.Nullable;

/**
 * A request names its tenant in a way that cannot be served: a tenant header sent twice, two resolvers naming
 * different tenants, a claim holding several tenants, or a tenant other than the one already bound.
 * {@link TenantResolutionFilter} answers it with HTTP 400 and does not call the rest of the filter chain.
 */
public class TenantResolutionException extends ShardTenancyException {

	private final String code;

	private final String title;

	/**
	 * @param code the problem's short name, the end of its RFC 9457 {@code type} ({@code urn:shard-tenancy:<code>});
	 * never {@code null}
	 * @param title the problem's title, never {@code null}
	 * @param message what was wrong and what to send instead, never {@code null}
	 * @param tenantId the tenant concerned, or {@code null}
	 */
	public TenantResolutionException(String code, String title, String message, @Nullable String tenantId) {
		super(message, tenantId, null, -1, null);
		this.code = Objects.requireNonNull(code, "code");
		this.title = Objects.requireNonNull(title, "title");
	}

	/** @return the problem's short name, as in {@code urn:shard-tenancy:<code>} */
	public String code() {
		return this.code;
	}

	/** @return the problem's title */
	public String title() {
		return this.title;
	}

}
