package io.github.shardtenancy.boot.web;

import java.util.List;
import java.util.concurrent.atomic.AtomicReference;

import io.github.shardtenancy.TenantContext;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.springframework.mock.web.MockFilterChain;
import org.springframework.mock.web.MockHttpServletRequest;
import org.springframework.mock.web.MockHttpServletResponse;
import org.springframework.security.authentication.AnonymousAuthenticationToken;
import org.springframework.security.authentication.UsernamePasswordAuthenticationToken;
import org.springframework.security.core.authority.AuthorityUtils;
import org.springframework.security.core.context.SecurityContextHolder;
import org.springframework.security.oauth2.core.DefaultOAuth2AuthenticatedPrincipal;
import org.springframework.security.oauth2.jwt.Jwt;
import org.springframework.security.oauth2.server.resource.authentication.BearerTokenAuthentication;
import org.springframework.security.oauth2.server.resource.authentication.JwtAuthenticationToken;
import org.springframework.security.oauth2.core.OAuth2AccessToken;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The built-in resolvers and the filter's rules on Spring's servlet test doubles, and the Spring Security resolvers
 * on Spring Security's own {@code SecurityContextHolder} and authentication types (no database involved).
 */
class TenantResolversTests {

	private final AtomicReference<String> seen = new AtomicReference<>("not called");

	private final MockFilterChain chain = chain();

	/** @return a new chain (a chain serves one request) recording the tenant bound when it is called */
	private MockFilterChain chain() {
		return new MockFilterChain(new HttpServlet() {

			@Override
			protected void service(HttpServletRequest req, HttpServletResponse resp) {
				TenantResolversTests.this.seen.set(TenantContext.current());
			}

		});
	}

	@AfterEach
	void clear() {
		SecurityContextHolder.clearContext();
	}

	@Test
	@DisplayName("path: the {tenant} variable after the context path, URL-decoded; other paths name none")
	void path() {
		TenantResolver path = TenantResolvers.path("/t/{tenant}/**");
		MockHttpServletRequest request = new MockHttpServletRequest("GET", "/shop/t/acme%3Aeu/orders/7");
		request.setContextPath("/shop");
		assertThat(path.resolve(request)).isEqualTo("acme:eu");
		assertThat(path.resolve(new MockHttpServletRequest("GET", "/orders/7"))).isNull();
		assertThat(path.resolve(new MockHttpServletRequest("GET", "/t/acme"))).isEqualTo("acme");
	}

	@Test
	@DisplayName("path: a pattern without {tenant}, or one that does not parse, is refused")
	void pathPatternChecked() {
		assertThatIllegalArgumentException().isThrownBy(() -> TenantResolvers.path("/t/{id}/**"))
			.withMessageContaining("no {tenant} variable");
		assertThatIllegalArgumentException().isThrownBy(() -> TenantResolvers.path("/t/{tenant"))
			.withMessageContaining("does not parse");
	}

	@Test
	@DisplayName("sub-domain: one label below the base domain, case-insensitive, a trailing dot ignored")
	void subdomain() {
		TenantResolver subdomain = TenantResolvers.subdomain("Example.com");
		assertThat(subdomain.resolve(host("acme.example.com"))).isEqualTo("acme");
		assertThat(subdomain.resolve(host("ACME.EXAMPLE.COM."))).isEqualTo("acme");
		assertThat(subdomain.resolve(host("example.com"))).isNull();
		assertThat(subdomain.resolve(host("a.b.example.com"))).isNull();
		assertThat(subdomain.resolve(host("acmeexample.com"))).isNull();
		assertThat(subdomain.resolve(host("localhost"))).isNull();
	}

	@Test
	@DisplayName("session: reads the attribute, and stores the decided tenant, creating the session")
	void session() throws Exception {
		TenantResolutionFilter filter = new TenantResolutionFilter(
				List.of(TenantResolvers.header("X-Tenant-Id"), TenantResolvers.session("tenant")), false,
				TenantResolutionFilter.ORDER);
		MockHttpServletRequest request = new MockHttpServletRequest("GET", "/");
		request.addHeader("X-Tenant-Id", "acme");
		filter.doFilter(request, new MockHttpServletResponse(), this.chain);
		assertThat(this.seen).hasValue("acme");
		assertThat(request.getSession(false).getAttribute("tenant")).isEqualTo("acme");

		MockHttpServletRequest next = new MockHttpServletRequest("POST", "/");
		next.setSession(request.getSession(false));
		this.seen.set("not called");
		filter.doFilter(next, new MockHttpServletResponse(), chain());
		assertThat(this.seen).hasValue("acme");
	}

	@Test
	@DisplayName("a request naming another tenant than the one an earlier filter bound: 400, nothing downstream runs")
	void anotherTenantAlreadyBound() throws Exception {
		MockHttpServletResponse response = filterWithAcmeBound("globex");
		assertThat(response.getStatus()).isEqualTo(400);
		assertThat(response.getContentAsString()).contains("tenant 'acme' is already bound");
		assertThat(this.seen).hasValue("not called");
	}

	@Test
	@DisplayName("a request naming the tenant an earlier filter bound runs with it, and leaves it bound")
	void sameTenantAlreadyBound() throws Exception {
		assertThat(filterWithAcmeBound("acme").getStatus()).isEqualTo(200);
		assertThat(this.seen).hasValue("acme");
		assertThat(TenantContext.current()).isNull();
	}

	@Test
	@DisplayName("principal: the authenticated user's name; anonymous and unauthenticated users name none")
	void principal() {
		TenantResolver principal = TenantResolvers.principal();
		assertThat(principal.requiresAuthentication()).isTrue();
		assertThat(principal.resolve(new MockHttpServletRequest())).isNull();
		SecurityContextHolder.getContext()
			.setAuthentication(new AnonymousAuthenticationToken("key", "anonymousUser",
					AuthorityUtils.createAuthorityList("ROLE_ANONYMOUS")));
		assertThat(principal.resolve(new MockHttpServletRequest())).isNull();
		SecurityContextHolder.getContext()
			.setAuthentication(UsernamePasswordAuthenticationToken.unauthenticated("acme", "secret"));
		assertThat(principal.resolve(new MockHttpServletRequest())).isNull();
		SecurityContextHolder.getContext()
			.setAuthentication(UsernamePasswordAuthenticationToken.authenticated("acme", "secret", List.of()));
		assertThat(principal.resolve(new MockHttpServletRequest())).isEqualTo("acme");
	}

	@Test
	@DisplayName("claim: a JWT's string or number claim, an opaque token's attribute; a map claim is refused")
	void claim() {
		TenantResolver claim = TenantResolvers.claim("tenant");
		assertThat(claim.requiresAuthentication()).isTrue();
		Jwt jwt = Jwt.withTokenValue("t").header("alg", "none").subject("alice").claim("tenant", "acme").build();
		SecurityContextHolder.getContext().setAuthentication(new JwtAuthenticationToken(jwt, List.of()));
		assertThat(claim.resolve(new MockHttpServletRequest())).isEqualTo("acme");

		Jwt numeric = Jwt.withTokenValue("t").header("alg", "none").claim("tenant", 42).build();
		SecurityContextHolder.getContext().setAuthentication(new JwtAuthenticationToken(numeric, List.of()));
		assertThat(claim.resolve(new MockHttpServletRequest())).isEqualTo("42");

		DefaultOAuth2AuthenticatedPrincipal opaque = new DefaultOAuth2AuthenticatedPrincipal("bob",
				java.util.Map.of("tenant", "globex"), List.of());
		SecurityContextHolder.getContext()
			.setAuthentication(new BearerTokenAuthentication(opaque, new OAuth2AccessToken(
					OAuth2AccessToken.TokenType.BEARER, "t", null, null), List.of()));
		assertThat(claim.resolve(new MockHttpServletRequest())).isEqualTo("globex");

		Jwt map = Jwt.withTokenValue("t").header("alg", "none").claim("tenant", java.util.Map.of("id", "acme")).build();
		SecurityContextHolder.getContext().setAuthentication(new JwtAuthenticationToken(map, List.of()));
		assertThatThrownBy(() -> claim.resolve(new MockHttpServletRequest()))
			.isInstanceOf(TenantResolutionException.class)
			.hasMessageContaining("Claim tenant of the authenticated principal is a");
	}

	/**
	 * @param headerTenant the tenant the request's header names
	 * @return the response of the header filter to the request, run while {@code acme} is bound (and still bound after)
	 */
	private MockHttpServletResponse filterWithAcmeBound(String headerTenant) throws Exception {
		MockHttpServletRequest request = new MockHttpServletRequest("GET", "/");
		request.addHeader("X-Tenant-Id", headerTenant);
		MockHttpServletResponse response = new MockHttpServletResponse();
		try (TenantContext.Scope outer = TenantContext.bind("acme")) {
			new TenantHeaderFilter("X-Tenant-Id").doFilter(request, response, this.chain);
			assertThat(TenantContext.current()).isEqualTo("acme");
		}
		return response;
	}

	private static MockHttpServletRequest host(String host) {
		MockHttpServletRequest request = new MockHttpServletRequest("GET", "/");
		request.setServerName(host);
		return request;
	}

}
