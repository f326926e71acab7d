package io.github.shardtenancy.boot.web;

import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;

import io.github.shardtenancy.TenantContext;
import io.github.shardtenancy.boot.testapp.Note;
import io.github.shardtenancy.boot.testapp.NoteRepository;
import io.github.shardtenancy.boot.testapp.SecurityFilterRegistration;
import io.github.shardtenancy.boot.testapp.TestApplication;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.web.servlet.DelegatingFilterProxyRegistrationBean;
import org.springframework.boot.webmvc.test.autoconfigure.AutoConfigureMockMvc;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;
import org.springframework.http.MediaType;
import org.springframework.mock.web.MockHttpSession;
import org.springframework.security.authentication.AnonymousAuthenticationToken;
import org.springframework.security.config.Customizer;
import org.springframework.security.config.annotation.web.builders.HttpSecurity;
import org.springframework.security.config.annotation.web.configuration.EnableWebSecurity;
import org.springframework.security.core.authority.AuthorityUtils;
import org.springframework.security.core.authority.SimpleGrantedAuthority;
import org.springframework.security.core.userdetails.User;
import org.springframework.security.provisioning.InMemoryUserDetailsManager;
import org.springframework.security.web.SecurityFilterChain;
import org.springframework.stereotype.Controller;
import org.springframework.test.web.servlet.MvcResult;
import org.springframework.test.web.servlet.ResultActions;
import org.springframework.test.web.servlet.request.MockHttpServletRequestBuilder;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.ResponseBody;

import static org.assertj.core.api.Assertions.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.not;
import static org.springframework.security.test.web.servlet.request.SecurityMockMvcRequestPostProcessors.anonymous;
import static org.springframework.security.test.web.servlet.request.SecurityMockMvcRequestPostProcessors.authentication;
import static org.springframework.security.test.web.servlet.request.SecurityMockMvcRequestPostProcessors.httpBasic;
import static org.springframework.security.test.web.servlet.request.SecurityMockMvcRequestPostProcessors.jwt;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.get;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.content;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.jsonPath;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.status;

/**
 * Whether the authenticated principal may act for the tenant its request resolves to ({@link TenantAccessPolicy}),
 * over MockMvc through Spring Security's real filter chain and the library's filter on H2 shards: for every resolver
 * (header, path, sub-domain, session, JWT claim), a principal granted the tenant is served bound to it (200), one
 * not granted is refused with 403 {@code TenantAccessDenied}, nothing bound and the controller not called, and an
 * anonymous request is left to Spring Security's rules (401 where they require authentication; the tenant bound, as
 * without a policy, where they permit everyone). Policies: {@code claim} (a JWT claim, or {@code TENANT_<id>}
 * authorities), {@code lookup} (a {@link TenantGrants} bean).
 */
class TenantAccessTests {

	static final String H2 = ";DB_CLOSE_DELAY=-1;LOCK_TIMEOUT=10000";

	/** The bound tenant and its notes, as JSON; every call records the tenant it ran for. */
	@Controller
	static class NotesPages {

		static final List<String> served = new CopyOnWriteArrayList<>();

		private final NoteRepository notes;

		NotesPages(NoteRepository notes) {
			this.notes = notes;
		}

		@GetMapping({ "/notes", "/t/{tenant}/notes", "/open/notes" })
		@ResponseBody
		Map<String, Object> notes() {
			String tenant = TenantContext.require("listing notes");
			served.add(tenant);
			return Map.of("tenant", tenant, "notes", this.notes.findAll().stream().map(Note::getTitle).toList());
		}

	}

	/**
	 * Spring Security's chain at Boot's order: {@code /open/**} open to everyone, the rest authenticated (HTTP basic,
	 * JWT); {@code alice} holds {@code TENANT_acme}, {@code bob} {@code TENANT_globex}.
	 */
	@Configuration(proxyBeanMethods = false)
	@EnableWebSecurity
	static class SecurityChain {

		@Bean
		SecurityFilterChain securityFilterChain(HttpSecurity http) throws Exception {
			http.authorizeHttpRequests((requests) -> requests.requestMatchers("/open/**")
				.permitAll()
				.anyRequest()
				.authenticated())
				.httpBasic(Customizer.withDefaults())
				.csrf((csrf) -> csrf.disable())
				.oauth2ResourceServer((server) -> server.jwt(Customizer.withDefaults()));
			return http.build();
		}

		@Bean
		org.springframework.security.oauth2.jwt.JwtDecoder jwtDecoder() {
			return (token) -> {
				throw new org.springframework.security.oauth2.jwt.BadJwtException("only jwt() in these tests");
			};
		}

		@Bean
		InMemoryUserDetailsManager users() {
			return new InMemoryUserDetailsManager(
					User.withUsername("alice").password("{noop}secret").authorities("TENANT_acme").build(),
					User.withUsername("bob").password("{noop}secret").authorities("TENANT_globex", "ROLE_acme").build());
		}

		@Bean
		DelegatingFilterProxyRegistrationBean securityFilterChainRegistration() {
			return SecurityFilterRegistration.atBootOrder();
		}

	}

	/** {@link TenantResolutionTests.WebApp} (MockMvc, the tenants acme, globex and initech, the filter). */
	abstract static class WebApp extends TenantResolutionTests.WebApp {

		@BeforeEach
		void nothingServedYet() {
			NotesPages.served.clear();
		}

		@AfterEach
		void nothingLeftBound() {
			assertThat(TenantContext.current()).isNull();
		}

		ResultActions servedAs(MockHttpServletRequestBuilder request, String tenant) throws Exception {
			ResultActions result = this.mvc.perform(request)
				.andExpect(status().isOk())
				.andExpect(jsonPath("$.tenant").value(tenant));
			assertThat(NotesPages.served).containsExactly(tenant);
			return result;
		}

		ResultActions refused(MockHttpServletRequestBuilder request, String tenant) throws Exception {
			ResultActions result = this.mvc.perform(request)
				.andExpect(status().isForbidden())
				.andExpect(content().contentTypeCompatibleWith(MediaType.APPLICATION_PROBLEM_JSON))
				.andExpect(jsonPath("$.type").value("urn:shard-tenancy:TenantAccessDenied"))
				.andExpect(jsonPath("$.title").value("Tenant access denied"))
				.andExpect(jsonPath("$.status").value(403))
				.andExpect(jsonPath("$.detail").value("The authenticated user may not act for tenant '" + tenant + "'"))
				.andExpect(jsonPath("$.detail", not(containsString("select"))))
				.andExpect(jsonPath("$.detail", not(containsString("Thread"))));
			assertThat(NotesPages.served).as("the controller is not called").isEmpty();
			return result;
		}

		void unauthenticated(MockHttpServletRequestBuilder request) throws Exception {
			this.mvc.perform(request).andExpect(status().isUnauthorized());
			assertThat(NotesPages.served).isEmpty();
		}

	}

	@Nested
	@SpringBootTest(classes = { TestApplication.class, NotesPages.class }, properties = {
			"shard-tenancy.directory.url=jdbc:h2:mem:access-claim-directory" + H2,
			"shard-tenancy.shards.shard-1.url=jdbc:h2:mem:access-claim-shard-1" + H2,
			"shard-tenancy.liquibase.shard-changelogs=db/test-shard.xml", "shard-tenancy.sync.interval=1h",
			"spring.jpa.open-in-view=false", "shard-tenancy.web.resolvers=header,path,subdomain,session",
			"shard-tenancy.web.base-domain=example.com", "shard-tenancy.web.access.policy=claim" })
	@Import(SecurityChain.class)
	@AutoConfigureMockMvc
	@DisplayName("with resolvers=header,path,subdomain,session and access.policy=claim behind Spring Security")
	class ClaimPolicy extends WebApp {

		@Test
		@DisplayName("the filter asks the claim policy and runs after Spring Security's chain")
		void policyAndOrder() {
			assertThat(this.filter.accessPolicy()).isInstanceOf(ClaimTenantAccessPolicy.class)
				.hasToString("claim tenants or authorities TENANT_<tenant>");
			assertThat(this.filter.getOrder()).isEqualTo(TenantResolutionFilter.AFTER_SECURITY_ORDER);
		}

		@Test
		@DisplayName("header: granted by TENANT_acme 200, not granted 403, anonymous 401")
		void header() throws Exception {
			servedAs(get("/notes").header("X-Tenant-Id", "acme").with(httpBasic("alice", "secret")), "acme");
			NotesPages.served.clear();
			refused(get("/notes").header("X-Tenant-Id", "acme").with(httpBasic("bob", "secret")), "acme");
			unauthenticated(get("/notes").header("X-Tenant-Id", "acme"));
		}

		@Test
		@DisplayName("path: granted 200, not granted 403, anonymous 401")
		void path() throws Exception {
			servedAs(get("/t/{tenant}/notes", "globex").with(httpBasic("bob", "secret")), "globex");
			NotesPages.served.clear();
			refused(get("/t/{tenant}/notes", "globex").with(httpBasic("alice", "secret")), "globex");
			unauthenticated(get("/t/{tenant}/notes", "globex"));
		}

		@Test
		@DisplayName("sub-domain: granted 200, not granted 403, anonymous 401")
		void subdomain() throws Exception {
			servedAs(get("http://acme.example.com/notes").with(httpBasic("alice", "secret")), "acme");
			NotesPages.served.clear();
			refused(get("http://acme.example.com/notes").with(httpBasic("bob", "secret")), "acme");
			unauthenticated(get("http://acme.example.com/notes"));
		}

		@Test
		@DisplayName("session: granted 200, not granted 403 and the session not written, anonymous 401")
		void session() throws Exception {
			MockHttpSession session = new MockHttpSession();
			session.setAttribute("shard-tenancy.tenant", "acme");
			servedAs(get("/notes").session(session).with(httpBasic("alice", "secret")), "acme");
			NotesPages.served.clear();
			refused(get("/notes").session(session).with(httpBasic("bob", "secret")), "acme");
			unauthenticated(get("/notes").session(session));
		}

		@Test
		@DisplayName("a refused path request stores no tenant in a session")
		void refusedStoresNothing() throws Exception {
			MvcResult result = refused(get("/t/{tenant}/notes", "acme").with(httpBasic("bob", "secret")), "acme")
				.andReturn();
			jakarta.servlet.http.HttpSession session = result.getRequest().getSession(false);
			if (session != null) {
				assertThat(session.getAttribute("shard-tenancy.tenant")).isNull();
			}
		}

		@Test
		@DisplayName("a role named like the tenant (ROLE_acme) grants nothing")
		void roleIsNoGrant() throws Exception {
			refused(get("/notes").header("X-Tenant-Id", "acme").with(httpBasic("bob", "secret")), "acme");
		}

		@Test
		@DisplayName("a JWT whose tenants claim lists the tenant, as an array or a separated string: 200")
		void jwtClaimLists() throws Exception {
			servedAs(get("/notes").header("X-Tenant-Id", "globex")
				.with(jwt().jwt((token) -> token.claim("tenants", List.of("acme", "globex")))), "globex");
			NotesPages.served.clear();
			servedAs(get("/t/{tenant}/notes", "acme").with(jwt().jwt((token) -> token.claim("tenants", "globex, acme"))),
					"acme");
			NotesPages.served.clear();
			servedAs(get("/notes").header("X-Tenant-Id", "acme")
				.with(jwt().jwt((token) -> token.claim("tenants", "globex acme"))), "acme");
		}

		@Test
		@DisplayName("a JWT whose tenants claim lists other tenants: 403")
		void jwtClaimWithoutTheTenant() throws Exception {
			refused(get("/notes").header("X-Tenant-Id", "acme")
				.with(jwt().jwt((token) -> token.claim("tenants", List.of("globex", "acme-2")))), "acme");
		}

		@Test
		@DisplayName("a JWT without the tenants claim: 403, never decided by the header nor by TENANT_ authorities")
		void jwtWithoutTheClaim() throws Exception {
			refused(get("/notes").header("X-Tenant-Id", "acme")
				.with(jwt().authorities(new SimpleGrantedAuthority("TENANT_acme"))), "acme");
		}

		@Test
		@DisplayName("anonymous where Spring Security permits everyone: not asked, the tenant bound as without a policy")
		void anonymousOnAnOpenPath() throws Exception {
			servedAs(get("/open/notes").header("X-Tenant-Id", "globex"), "globex");
			NotesPages.served.clear();
			servedAs(get("/open/notes").header("X-Tenant-Id", "acme")
				.with(authentication(new AnonymousAuthenticationToken("key", "anonymous",
						AuthorityUtils.createAuthorityList("ROLE_ANONYMOUS")))), "acme");
			NotesPages.served.clear();
			servedAs(get("/open/notes").header("X-Tenant-Id", "acme").with(anonymous()), "acme");
		}

		@Test
		@DisplayName("an authenticated request on an open path is still asked: 403")
		void authenticatedOnAnOpenPath() throws Exception {
			refused(get("/open/notes").header("X-Tenant-Id", "globex").with(httpBasic("alice", "secret")), "globex");
		}

		@Test
		@DisplayName("no tenant named: nothing to ask, tenant work answered 400 as before")
		void noTenant() throws Exception {
			this.mvc.perform(get("/notes").with(httpBasic("alice", "secret")))
				.andExpect(status().isBadRequest())
				.andExpect(jsonPath("$.title").value("No tenant"));
		}

	}

	@Nested
	@SpringBootTest(classes = { TestApplication.class, NotesPages.class }, properties = {
			"shard-tenancy.directory.url=jdbc:h2:mem:access-jwt-directory" + H2,
			"shard-tenancy.shards.shard-1.url=jdbc:h2:mem:access-jwt-shard-1" + H2,
			"shard-tenancy.liquibase.shard-changelogs=db/test-shard.xml", "shard-tenancy.sync.interval=1h",
			"spring.jpa.open-in-view=false", "shard-tenancy.web.resolvers=jwt-claim",
			"shard-tenancy.web.access.policy=claim", "shard-tenancy.web.access.claim=member_of" })
	@Import(SecurityChain.class)
	@AutoConfigureMockMvc
	@DisplayName("with resolvers=jwt-claim and access.policy=claim, access.claim=member_of")
	class JwtClaimResolver extends WebApp {

		@Test
		@DisplayName("jwt-claim: the token's tenant listed in member_of 200, not listed 403, claim missing 403")
		void jwtClaim() throws Exception {
			servedAs(get("/notes").with(jwt().jwt((token) -> token.claim("tenant", "acme")
				.claim("member_of", List.of("acme")))), "acme");
			NotesPages.served.clear();
			refused(get("/notes").with(jwt().jwt((token) -> token.claim("tenant", "acme")
				.claim("member_of", List.of("globex")))), "acme");
			refused(get("/notes").with(jwt().jwt((token) -> token.claim("tenant", "acme"))), "acme");
		}

		@Test
		@DisplayName("jwt-claim: anonymous 401")
		void anonymousRequest() throws Exception {
			unauthenticated(get("/notes"));
		}

	}

	/** The application's grants: alice may act for globex only. */
	@Configuration(proxyBeanMethods = false)
	static class Grants {

		@Bean
		TenantGrants tenantGrants() {
			return (authentication) -> "alice".equals(authentication.getName()) ? List.of("globex") : null;
		}

	}

	@Nested
	@SpringBootTest(classes = { TestApplication.class, NotesPages.class }, properties = {
			"shard-tenancy.directory.url=jdbc:h2:mem:access-lookup-directory" + H2,
			"shard-tenancy.shards.shard-1.url=jdbc:h2:mem:access-lookup-shard-1" + H2,
			"shard-tenancy.liquibase.shard-changelogs=db/test-shard.xml", "shard-tenancy.sync.interval=1h",
			"spring.jpa.open-in-view=false" })
	@Import({ SecurityChain.class, Grants.class })
	@AutoConfigureMockMvc
	@DisplayName("with the default header resolver and a TenantGrants bean (no access property)")
	class LookupPolicy extends WebApp {

		@Test
		@DisplayName("header: looked-up grant 200 (the authority TENANT_acme is not consulted), none 403, anonymous 401")
		void header() throws Exception {
			servedAs(get("/notes").header("X-Tenant-Id", "globex").with(httpBasic("alice", "secret")), "globex");
			NotesPages.served.clear();
			refused(get("/notes").header("X-Tenant-Id", "acme").with(httpBasic("alice", "secret")), "acme");
			refused(get("/notes").header("X-Tenant-Id", "globex").with(httpBasic("bob", "secret")), "globex");
			unauthenticated(get("/notes").header("X-Tenant-Id", "globex"));
		}

	}

	/** The application's own policy: every tenant but {@code initech}. */
	@Configuration(proxyBeanMethods = false)
	static class OwnPolicy {

		@Bean
		TenantAccessPolicy everyTenantButInitech() {
			return (authentication, tenant) -> !"initech".equals(tenant);
		}

	}

	@Nested
	@SpringBootTest(classes = { TestApplication.class, NotesPages.class }, properties = {
			"shard-tenancy.directory.url=jdbc:h2:mem:access-own-directory" + H2,
			"shard-tenancy.shards.shard-1.url=jdbc:h2:mem:access-own-shard-1" + H2,
			"shard-tenancy.liquibase.shard-changelogs=db/test-shard.xml", "shard-tenancy.sync.interval=1h",
			"spring.jpa.open-in-view=false", "shard-tenancy.web.access.policy=claim" })
	@Import({ SecurityChain.class, Grants.class, OwnPolicy.class })
	@AutoConfigureMockMvc
	@DisplayName("with the application's TenantAccessPolicy bean, a TenantGrants bean and access.policy=claim")
	class ApplicationPolicy extends WebApp {

		@Test
		@DisplayName("the application's policy wins over claim and lookup")
		void applicationPolicyWins() throws Exception {
			servedAs(get("/notes").header("X-Tenant-Id", "acme").with(httpBasic("bob", "secret")), "acme");
			NotesPages.served.clear();
			refused(get("/notes").header("X-Tenant-Id", "initech").with(httpBasic("alice", "secret")), "initech");
		}

	}

}
