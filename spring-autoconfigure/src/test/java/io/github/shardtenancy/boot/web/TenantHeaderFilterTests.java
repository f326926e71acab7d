package io.github.shardtenancy.boot.web;

import java.util.concurrent.atomic.AtomicReference;

import io.github.shardtenancy.TenantContext;
import jakarta.servlet.http.HttpServletResponse;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.springframework.mock.web.MockFilterChain;
import org.springframework.mock.web.MockHttpServletRequest;
import org.springframework.mock.web.MockHttpServletResponse;

import static org.assertj.core.api.Assertions.assertThat;

/** The tenant header filter, run on Spring's servlet test doubles (no database involved). */
class TenantHeaderFilterTests {

	private final TenantHeaderFilter filter = new TenantHeaderFilter("X-Tenant-Id");

	private final AtomicReference<String> seen = new AtomicReference<>("not called");

	private final MockFilterChain chain = new MockFilterChain(new jakarta.servlet.http.HttpServlet() {

		@Override
		protected void service(jakarta.servlet.http.HttpServletRequest req, HttpServletResponse resp) {
			TenantHeaderFilterTests.this.seen.set(TenantContext.current());
		}

	});

	@Test
	@DisplayName("a request with the header runs with that tenant bound, and unbound afterwards")
	void headerBindsTheTenantForTheRequest() throws Exception {
		MockHttpServletRequest request = new MockHttpServletRequest("GET", "/notes");
		request.addHeader("X-Tenant-Id", "acme");
		MockHttpServletResponse response = new MockHttpServletResponse();

		this.filter.doFilter(request, response, this.chain);

		assertThat(this.seen).hasValue("acme");
		assertThat(TenantContext.current()).isNull();
		assertThat(response.getStatus()).isEqualTo(200);
	}

	@Test
	@DisplayName("a request without the header runs without a tenant")
	void noHeaderRunsWithoutTenant() throws Exception {
		this.filter.doFilter(new MockHttpServletRequest("GET", "/health"), new MockHttpServletResponse(), this.chain);

		assertThat(this.seen.get()).isNull();
	}

	@Test
	@DisplayName("an invalid tenant id is answered with 400 and the reason, and nothing downstream runs")
	void invalidTenantIsRejectedWith400() throws Exception {
		MockHttpServletRequest request = new MockHttpServletRequest("GET", "/notes");
		request.addHeader("X-Tenant-Id", "acme; drop table");
		MockHttpServletResponse response = new MockHttpServletResponse();

		this.filter.doFilter(request, response, this.chain);

		assertThat(response.getStatus()).isEqualTo(400);
		assertThat(response.getContentAsString()).contains("Invalid tenant id 'acme; drop table'");
		assertThat(this.seen).hasValue("not called");
		assertThat(TenantContext.current()).isNull();
	}

	@Test
	@DisplayName("a header sent twice is answered with 400, whichever values it carries, and nothing downstream runs")
	void repeatedHeaderIsRejectedWith400() throws Exception {
		MockHttpServletRequest request = new MockHttpServletRequest("GET", "/notes");
		request.addHeader("X-Tenant-Id", "acme");
		request.addHeader("X-Tenant-Id", "globex");
		MockHttpServletResponse response = new MockHttpServletResponse();

		this.filter.doFilter(request, response, this.chain);

		assertThat(response.getStatus()).isEqualTo(400);
		assertThat(response.getContentAsString()).contains("appears more than once");
		assertThat(this.seen).hasValue("not called");
		assertThat(TenantContext.current()).isNull();
	}

	@Test
	@DisplayName("the tenant is unbound even when the chain throws")
	void unbindsWhenTheChainThrows() {
		MockHttpServletRequest request = new MockHttpServletRequest("GET", "/notes");
		request.addHeader("X-Tenant-Id", "acme");
		MockFilterChain failing = new MockFilterChain(new jakarta.servlet.http.HttpServlet() {

			@Override
			protected void service(jakarta.servlet.http.HttpServletRequest req, HttpServletResponse resp) {
				throw new IllegalStateException("boom");
			}

		});

		org.assertj.core.api.Assertions
			.assertThatThrownBy(() -> this.filter.doFilter(request, new MockHttpServletResponse(), failing))
			.hasMessage("boom");
		assertThat(TenantContext.current()).isNull();
	}

}
