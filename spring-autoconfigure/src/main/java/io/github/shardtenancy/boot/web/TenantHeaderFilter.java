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
 * <li>A header value that breaks the tenant id rule, or a header sent more than once, is answered with HTTP 400 and
 * the reason (the {@link InvalidTenantIdException} message) as a plain-text body, or as an RFC 9457 problem detail
 * ({@code application/problem+json}, as {@link ShardTenancyProblemDetails} answers) when constructed with
 * {@code problemDetails}; nothing is routed and the chain is not called.</li>
 * </ul>
 *
 * <p>Ordered at {@link #ORDER}, ahead of Spring Security's filter chain, so that everything downstream sees the
 * tenant. Thread-safe.
 */
public class TenantHeaderFilter extends OncePerRequestFilter implements Ordered {

	/** The filter's order: {@code -105}, just before Spring Security's default filter chain order ({@code -100}). */
	public static final int ORDER = -105;

	private final String headerName;

	private final boolean problemDetails;

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
		this.headerName = Objects.requireNonNull(headerName, "headerName");
		this.problemDetails = problemDetails;
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
			badRequest(response, "RepeatedTenantHeader", "Repeated tenant header",
					"Header " + this.headerName + " appears more than once; send exactly one tenant");
			return;
		}
		TenantContext.Scope scope;
		try {
			scope = TenantContext.bind(tenant);
		}
		catch (InvalidTenantIdException ex) {
			badRequest(response, "InvalidTenantIdException", "Invalid tenant id", ex.getMessage());
			return;
		}
		try {
			chain.doFilter(request, response);
		}
		finally {
			scope.close();
		}
	}

	private void badRequest(HttpServletResponse response, String type, String title, String message)
			throws IOException {
		response.setStatus(HttpServletResponse.SC_BAD_REQUEST);
		response.setCharacterEncoding(StandardCharsets.UTF_8.name());
		if (this.problemDetails) {
			response.setContentType("application/problem+json");
			response.getWriter()
				.write("{\"type\":\"urn:shard-tenancy:" + type + "\",\"title\":\"" + title
						+ "\",\"status\":400,\"detail\":" + jsonString(message) + "}");
		}
		else {
			response.setContentType("text/plain;charset=UTF-8");
			response.getWriter().write(message);
		}
		response.flushBuffer();
	}

	/** A JSON string literal (RFC 8259, section 7: https://www.rfc-editor.org/rfc/rfc8259#section-7). */
	private static String jsonString(String value) {
		StringBuilder json = new StringBuilder(value.length() + 2).append('"');
		for (int i = 0; i < value.length(); i++) {
			char c = value.charAt(i);
			if (c == '"' || c == '\\') {
				json.append('\\').append(c);
			}
			else if (c < 0x20) {
				json.append(String.format("\\u%04x", (int) c));
			}
			else {
				json.append(c);
			}
		}
		return json.append('"').toString();
	}

}
