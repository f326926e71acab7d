package io.github.shardtenancy.boot.web;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Enumeration;
import java.util.Objects;

import io.github.shardtenancy.InvalidTenantIdException;
import io.github.shardtenancy.TenantContext;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import org.springframework.core.Ordered;
import org.springframework.web.filter.OncePerRequestFilter;

/**
 * Binds the tenant named in a request header ({@code X-Tenant-Id} by default) to the request's thread with
 * {@link TenantContext#bind(String)} for the rest of the filter chain, and unbinds it when the chain returns or
 * throws.
 *
 * <ul>
 * <li>A request without the header runs without a tenant (work that needs one fails with
 * {@link io.github.shardtenancy.NoTenantBoundException}).</li>
 * <li>A header value that breaks the tenant id rule is answered with HTTP 400 and the
 * {@link InvalidTenantIdException} message as a plain-text body; nothing is routed and the chain is not called.</li>
 * </ul>
 *
 * <p>Ordered at {@link #ORDER}, ahead of Spring Security's filter chain, so that everything downstream sees the
 * tenant. Thread-safe.
 */
public class TenantHeaderFilter extends OncePerRequestFilter implements Ordered {

	/** The filter's order: {@code -105}, just before Spring Security's default filter chain order ({@code -100}). */
	public static final int ORDER = -105;

	private final String headerName;

	/**
	 * @param headerName the request header naming the tenant; never {@code null}
	 */
	public TenantHeaderFilter(String headerName) {
		this.headerName = Objects.requireNonNull(headerName, "headerName");
	}

	/** @return the request header naming the tenant */
	public String headerName() {
		return this.headerName;
	}

	@Override
	public int getOrder() {
		return ORDER;
	}

	@Override
	protected void doFilterInternal(HttpServletRequest request, HttpServletResponse response, FilterChain chain)
			throws ServletException, IOException {
		String tenant = request.getHeader(this.headerName);
		if (tenant == null) {
			chain.doFilter(request, response);
			return;
		}
		Enumeration<String> values = request.getHeaders(this.headerName);
		values.nextElement();
		if (values.hasMoreElements()) {
			// Proxies disagree on which of several values wins; routing by either would be a guess.
			badRequest(response, "Header " + this.headerName + " appears more than once; send exactly one tenant");
			return;
		}
		TenantContext.Scope scope;
		try {
			scope = TenantContext.bind(tenant);
		}
		catch (InvalidTenantIdException ex) {
			badRequest(response, ex.getMessage());
			return;
		}
		try {
			chain.doFilter(request, response);
		}
		finally {
			scope.close();
		}
	}

	private static void badRequest(HttpServletResponse response, String message) throws IOException {
		response.setStatus(HttpServletResponse.SC_BAD_REQUEST);
		response.setCharacterEncoding(StandardCharsets.UTF_8.name());
		response.setContentType("text/plain;charset=UTF-8");
		response.getWriter().write(message);
		response.flushBuffer();
	}

}
