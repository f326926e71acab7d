package io.github.shardtenancy.boot.web;

import java.util.List;
import java.util.Objects;

/**
 * A {@link TenantResolutionFilter} with one resolver: the tenant named in a request header ({@code X-Tenant-Id} by
 * default, {@link TenantResolvers#header(String)}).
 *
 * <ul>
 * <li>A request without the header runs without a tenant (work that needs one fails with
 * {@link io.github.shardtenancy.NoTenantBoundException}).</li>
 * <li>A header value that breaks the tenant id rule, or a header sent more than once, is answered with HTTP 400 and
 * the reason as a plain-text body, or as an RFC 9457 problem detail when constructed with {@code problemDetails};
 * nothing is routed and the chain is not called.</li>
 * </ul>
 *
 * <p>Ordered at {@link #ORDER}, ahead of Spring Security's filter chain. Thread-safe.
 */
public class TenantHeaderFilter extends TenantResolutionFilter {

	private final String headerName;

	/**
	 * A filter answering a bad header in plain text.
	 * @param headerName the request header naming the tenant; never {@code null}
	 */
	public TenantHeaderFilter(String headerName) {
		this(headerName, false);
	}

	/**
	 * @param headerName the request header naming the tenant; never {@code null}
	 * @param problemDetails whether a bad header is answered with an RFC 9457 problem detail instead of plain text
	 */
	public TenantHeaderFilter(String headerName, boolean problemDetails) {
		super(List.of(TenantResolvers.header(Objects.requireNonNull(headerName, "headerName"))), problemDetails, ORDER);
		this.headerName = headerName;
	}

	/** @return the request header naming the tenant */
	public String headerName() {
		return this.headerName;
	}

}
