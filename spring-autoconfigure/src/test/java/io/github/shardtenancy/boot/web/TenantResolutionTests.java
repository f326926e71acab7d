package io.github.shardtenancy.boot.web;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.List;
import java.util.Map;

import javax.crypto.SecretKey;
import javax.crypto.spec.SecretKeySpec;

import io.github.shardtenancy.TenantAdmin;
import io.github.shardtenancy.TenantContext;
import io.github.shardtenancy.boot.testapp.Note;
import io.github.shardtenancy.boot.testapp.NoteRepository;
import io.github.shardtenancy.boot.testapp.SecurityFilterRegistration;
import io.github.shardtenancy.boot.testapp.TestApplication;
import jakarta.servlet.http.HttpServletRequest;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.web.servlet.DelegatingFilterProxyRegistrationBean;
import org.springframework.boot.webmvc.test.autoconfigure.AutoConfigureMockMvc;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;
import org.springframework.core.annotation.Order;
import org.springframework.http.MediaType;
import org.springframework.mock.web.MockHttpSession;
import org.springframework.security.config.Customizer;
import org.springframework.security.config.annotation.web.builders.HttpSecurity;
import org.springframework.security.config.annotation.web.configuration.EnableWebSecurity;
import org.springframework.security.core.userdetails.User;
import org.springframework.security.oauth2.jose.jws.MacAlgorithm;
import org.springframework.security.oauth2.jwt.JwsHeader;
import org.springframework.security.oauth2.jwt.JwtClaimsSet;
import org.springframework.security.oauth2.jwt.JwtEncoderParameters;
import org.springframework.security.oauth2.jwt.NimbusJwtDecoder;
import org.springframework.security.oauth2.jwt.NimbusJwtEncoder;
import org.springframework.security.provisioning.InMemoryUserDetailsManager;
import org.springframework.security.web.SecurityFilterChain;
import org.springframework.stereotype.Controller;
import org.springframework.test.web.servlet.MockMvc;
import org.springframework.test.web.servlet.MvcResult;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.ResponseBody;

import static org.assertj.core.api.Assertions.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.springframework.security.test.web.servlet.request.SecurityMockMvcRequestPostProcessors.httpBasic;
import static org.springframework.security.test.web.servlet.request.SecurityMockMvcRequestPostProcessors.jwt;
import static org.springframework.security.test.web.servlet.request.SecurityMockMvcRequestPostProcessors.user;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.get;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.post;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.content;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.jsonPath;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.redirectedUrl;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.status;

/**
 * The tenant resolvers of {@code shard-tenancy.web.resolvers} and the application's own, over MockMvc on H2 shards:
 * each answers the tenant its way, the notes read and written are the bound tenant's, resolvers that disagree are
 * answered 400, the session keeps the tenant across a form post and its redirect, and the Spring Security resolvers
 * read the user authenticated by Spring Security's real filter chain (HTTP basic, a signed JWT bearer token, and
 * spring-security-test's {@code user()} and {@code jwt()}).
 */
class TenantResolutionTests {

	static final String H2 = ";DB_CLOSE_DELAY=-1;LOCK_TIMEOUT=10000";

	/** The bound tenant and its notes, as JSON; a form post adding a note, redirected to the tenant-less list. */
	@Controller
	static class NotesPages {

		private final NoteRepository notes;

		NotesPages(NoteRepository notes) {
			this.notes = notes;
		}

		@GetMapping({ "/notes", "/t/{tenant}/notes" })
		@ResponseBody
		Map<String, Object> notes() {
			String tenant = TenantContext.require("listing notes");
			return Map.of("tenant", tenant, "notes", this.notes.findAll().stream().map(Note::getTitle).toList());
		}

		@PostMapping({ "/notes", "/t/{tenant}/notes" })
		String add(@RequestParam String title, @PathVariable(required = false) String tenant) {
			this.notes.save(new Note(title));
			return "redirect:" + ((tenant != null) ? "/t/" + tenant + "/notes" : "/notes");
		}

	}

	/** What every test context below offers: MockMvc over the context's filters, the tenants, the filter. */
	abstract static class WebApp {

		@Autowired
		MockMvc mvc;

		@Autowired
		TenantAdmin admin;

		@Autowired
		TenantResolutionFilter filter;

		@BeforeEach
		void tenants() {
			for (String tenant : List.of("acme", "globex", "initech")) {
				if (this.admin.find(tenant).isEmpty()) {
					this.admin.create(tenant);
				}
			}
		}

	}

	@Nested
	@SpringBootTest(classes = { TestApplication.class, NotesPages.class }, properties = {
			"shard-tenancy.directory.url=jdbc:h2:mem:resolve-directory" + H2,
			"shard-tenancy.shards.shard-1.url=jdbc:h2:mem:resolve-shard-1" + H2,
			"shard-tenancy.shards.shard-2.url=jdbc:h2:mem:resolve-shard-2" + H2,
			"shard-tenancy.liquibase.shard-changelogs=db/test-shard.xml", "shard-tenancy.sync.interval=1h",
			"spring.jpa.open-in-view=false", "shard-tenancy.web.resolvers=header,path,session",
			"shard-tenancy.web.access.policy=none" })
	@AutoConfigureMockMvc
	@DisplayName("with resolvers=header,path,session")
	class HeaderPathSession extends WebApp {




		@Test
		@DisplayName("the filter has the three resolvers in the configured order, before Spring Security's order")
		void resolversInOrder() {
			assertThat(this.filter.resolvers()).extracting(Object::toString)
				.containsExactly("header X-Tenant-Id", "path /t/{tenant}/**",
						"session attribute shard-tenancy.tenant");
			assertThat(this.filter.getOrder()).isEqualTo(TenantResolutionFilter.ORDER);
		}

		@Test
		@DisplayName("the path names the tenant, its notes are read from its shard")
		void pathNamesTheTenant() throws Exception {
			this.mvc.perform(post("/t/{tenant}/notes", "acme").param("title", "acme's path note"))
				.andExpect(status().is3xxRedirection());
			this.mvc.perform(get("/t/{tenant}/notes", "acme"))
				.andExpect(status().isOk())
				.andExpect(jsonPath("$.tenant").value("acme"))
				.andExpect(jsonPath("$.notes", org.hamcrest.Matchers.hasItem("acme's path note")));
			this.mvc.perform(get("/t/{tenant}/notes", "globex"))
				.andExpect(jsonPath("$.tenant").value("globex"))
				.andExpect(jsonPath("$.notes", org.hamcrest.Matchers.not(org.hamcrest.Matchers.hasItem("acme's path note"))));
		}

		@Test
		@DisplayName("the header names the tenant where the path does not")
		void headerNamesTheTenant() throws Exception {
			this.mvc.perform(get("/notes").header("X-Tenant-Id", "globex"))
				.andExpect(status().isOk())
				.andExpect(jsonPath("$.tenant").value("globex"));
		}

		@Test
		@DisplayName("header and path naming the same tenant agree: 200")
		void agreeingResolvers() throws Exception {
			this.mvc.perform(get("/t/{tenant}/notes", "acme").header("X-Tenant-Id", "acme"))
				.andExpect(status().isOk())
				.andExpect(jsonPath("$.tenant").value("acme"));
		}

		@Test
		@DisplayName("header and path naming different tenants: 400 naming both, nothing routed")
		void disagreeingResolvers() throws Exception {
			this.mvc.perform(get("/t/{tenant}/notes", "acme").header("X-Tenant-Id", "globex"))
				.andExpect(status().isBadRequest())
				.andExpect(content().contentTypeCompatibleWith(MediaType.APPLICATION_PROBLEM_JSON))
				.andExpect(jsonPath("$.type").value("urn:shard-tenancy:TenantMismatch"))
				.andExpect(jsonPath("$.title").value("Tenant mismatch"))
				.andExpect(jsonPath("$.detail", containsString("'globex' (header X-Tenant-Id)")))
				.andExpect(jsonPath("$.detail", containsString("'acme' (path /t/{tenant}/**)")));
		}

		@Test
		@DisplayName("an invalid tenant in the path: 400, the id quoted")
		void invalidPathTenant() throws Exception {
			this.mvc.perform(get("/t/{tenant}/notes", "bad id!"))
				.andExpect(status().isBadRequest())
				.andExpect(jsonPath("$.title").value("Invalid tenant id"))
				.andExpect(jsonPath("$.detail", containsString("'bad id!'")));
		}

		@Test
		@DisplayName("a repeated header is still refused with 400")
		void repeatedHeader() throws Exception {
			this.mvc.perform(get("/notes").header("X-Tenant-Id", "acme", "acme"))
				.andExpect(status().isBadRequest())
				.andExpect(jsonPath("$.title").value("Repeated tenant header"));
		}

		@Test
		@DisplayName("no resolver names a tenant: tenant work is answered 400, naming the header")
		void noTenant() throws Exception {
			this.mvc.perform(get("/notes"))
				.andExpect(status().isBadRequest())
				.andExpect(jsonPath("$.title").value("No tenant"))
				.andExpect(jsonPath("$.detail", containsString("X-Tenant-Id")));
		}

		@Test
		@DisplayName("the session keeps the tenant across a form post without it and the redirect that follows")
		void sessionKeepsTheTenantAcrossPostAndRedirect() throws Exception {
			MvcResult first = this.mvc.perform(get("/t/{tenant}/notes", "globex")).andExpect(status().isOk()).andReturn();
			MockHttpSession session = (MockHttpSession) first.getRequest().getSession(false);
			assertThat(session).as("session created by the session resolver").isNotNull();
			assertThat(session.getAttribute("shard-tenancy.tenant")).isEqualTo("globex");

			this.mvc.perform(post("/notes").session(session).param("title", "globex's form note"))
				.andExpect(status().is3xxRedirection())
				.andExpect(redirectedUrl("/notes"));
			this.mvc.perform(get("/notes").session(session))
				.andExpect(status().isOk())
				.andExpect(jsonPath("$.tenant").value("globex"))
				.andExpect(jsonPath("$.notes", org.hamcrest.Matchers.hasItem("globex's form note")));
			this.mvc.perform(get("/t/{tenant}/notes", "acme"))
				.andExpect(jsonPath("$.tenant").value("acme"))
				.andExpect(jsonPath("$.notes", org.hamcrest.Matchers.not(org.hamcrest.Matchers.hasItem("globex's form note"))));
		}

		@Test
		@DisplayName("a session kept for one tenant refuses a path naming another: 400")
		void sessionRefusesAnotherTenant() throws Exception {
			MvcResult first = this.mvc.perform(get("/t/{tenant}/notes", "acme")).andReturn();
			MockHttpSession session = (MockHttpSession) first.getRequest().getSession(false);

			this.mvc.perform(get("/t/{tenant}/notes", "globex").session(session))
				.andExpect(status().isBadRequest())
				.andExpect(jsonPath("$.title").value("Tenant mismatch"))
				.andExpect(jsonPath("$.detail", containsString("session attribute shard-tenancy.tenant")));
		}

	}

	/** Spring Security's filter chain at Spring Boot's order ({@code spring.security.filter.order}, -100). */
	@Configuration(proxyBeanMethods = false)
	@EnableWebSecurity
	static class SecurityChain {

		static final SecretKey KEY = new SecretKeySpec(
				"a test key of at least 256 bits, for HS256 only".getBytes(StandardCharsets.US_ASCII), "HmacSHA256");

		@Bean
		SecurityFilterChain securityFilterChain(HttpSecurity http) throws Exception {
			http.authorizeHttpRequests((requests) -> requests.anyRequest().authenticated())
				.httpBasic(Customizer.withDefaults())
				.csrf((csrf) -> csrf.disable())
				.oauth2ResourceServer((server) -> server
					.jwt((jwt) -> jwt.decoder(NimbusJwtDecoder.withSecretKey(KEY).macAlgorithm(MacAlgorithm.HS256).build())));
			return http.build();
		}

		@Bean
		InMemoryUserDetailsManager users() {
			return new InMemoryUserDetailsManager(User.withUsername("acme").password("{noop}secret").build());
		}

		@Bean
		DelegatingFilterProxyRegistrationBean securityFilterChainRegistration() {
			return SecurityFilterRegistration.atBootOrder();
		}

		static String token(String subject, Object tenantClaim) {
			JwtClaimsSet claims = JwtClaimsSet.builder()
				.subject(subject)
				.issuedAt(Instant.now())
				.expiresAt(Instant.now().plusSeconds(300))
				.claim("tenant_id", tenantClaim)
				.build();
			return NimbusJwtEncoder.withSecretKey(KEY)
				.build()
				.encode(JwtEncoderParameters.from(JwsHeader.with(MacAlgorithm.HS256).build(), claims))
				.getTokenValue();
		}

	}

	@Nested
	@SpringBootTest(classes = { TestApplication.class, NotesPages.class }, properties = {
			"shard-tenancy.directory.url=jdbc:h2:mem:resolve-principal-directory" + H2,
			"shard-tenancy.shards.shard-1.url=jdbc:h2:mem:resolve-principal-shard-1" + H2,
			"shard-tenancy.liquibase.shard-changelogs=db/test-shard.xml", "shard-tenancy.sync.interval=1h",
			"spring.jpa.open-in-view=false", "shard-tenancy.web.resolvers=principal" })
	@Import(SecurityChain.class)
	@AutoConfigureMockMvc
	@DisplayName("with resolvers=principal behind Spring Security")
	class Principal extends WebApp {




		@Test
		@DisplayName("the filter runs after Spring Security's chain")
		void orderedAfterSecurity() {
			assertThat(this.filter.getOrder()).isEqualTo(TenantResolutionFilter.AFTER_SECURITY_ORDER);
		}

		@Test
		@DisplayName("a user authenticated with HTTP basic by the real chain: the user's name is the tenant")
		void basicAuthenticatedUser() throws Exception {
			this.mvc.perform(get("/notes").with(httpBasic("acme", "secret")))
				.andExpect(status().isOk())
				.andExpect(jsonPath("$.tenant").value("acme"));
		}

		@Test
		@DisplayName("spring-security-test's user(): the user's name is the tenant")
		void testUser() throws Exception {
			this.mvc.perform(get("/notes").with(user("initech")))
				.andExpect(status().isOk())
				.andExpect(jsonPath("$.tenant").value("initech"));
		}

		@Test
		@DisplayName("an unauthenticated request is refused by Spring Security before any tenant is bound")
		void unauthenticated() throws Exception {
			this.mvc.perform(get("/notes")).andExpect(status().isUnauthorized());
		}

	}

	@Nested
	@SpringBootTest(classes = { TestApplication.class, NotesPages.class }, properties = {
			"shard-tenancy.directory.url=jdbc:h2:mem:resolve-jwt-directory" + H2,
			"shard-tenancy.shards.shard-1.url=jdbc:h2:mem:resolve-jwt-shard-1" + H2,
			"shard-tenancy.liquibase.shard-changelogs=db/test-shard.xml", "shard-tenancy.sync.interval=1h",
			"spring.jpa.open-in-view=false", "shard-tenancy.web.resolvers=jwt-claim,header",
			"shard-tenancy.web.jwt-claim=tenant_id", "shard-tenancy.web.access.policy=claim",
			"shard-tenancy.web.access.claim=tenant_id" })
	@Import(SecurityChain.class)
	@AutoConfigureMockMvc
	@DisplayName("with resolvers=jwt-claim,header and jwt-claim=tenant_id behind Spring Security")
	class JwtClaim extends WebApp {



		@Test
		@DisplayName("a signed bearer token decoded by the resource server: its claim is the tenant")
		void bearerToken() throws Exception {
			this.mvc.perform(get("/notes").header("Authorization", "Bearer " + SecurityChain.token("alice", "globex")))
				.andExpect(status().isOk())
				.andExpect(jsonPath("$.tenant").value("globex"));
		}

		@Test
		@DisplayName("spring-security-test's jwt(): its claim is the tenant")
		void testJwt() throws Exception {
			this.mvc.perform(get("/notes").with(jwt().jwt((token) -> token.claim("tenant_id", "acme"))))
				.andExpect(status().isOk())
				.andExpect(jsonPath("$.tenant").value("acme"));
		}

		@Test
		@DisplayName("a claim holding one tenant in a list is that tenant; several are refused with 400")
		void listClaims() throws Exception {
			this.mvc.perform(get("/notes").with(jwt().jwt((token) -> token.claim("tenant_id", List.of("acme")))))
				.andExpect(jsonPath("$.tenant").value("acme"));
			this.mvc.perform(get("/notes").with(jwt().jwt((token) -> token.claim("tenant_id", List.of("acme", "globex")))))
				.andExpect(status().isBadRequest())
				.andExpect(jsonPath("$.title").value("Ambiguous tenant claim"));
		}

		@Test
		@DisplayName("a header naming another tenant than the token's claim: 400, the token cannot be widened")
		void headerDisagreesWithClaim() throws Exception {
			this.mvc.perform(get("/notes").header("X-Tenant-Id", "globex")
				.with(jwt().jwt((token) -> token.claim("tenant_id", "acme"))))
				.andExpect(status().isBadRequest())
				.andExpect(jsonPath("$.title").value("Tenant mismatch"));
		}

		@Test
		@DisplayName("a token without the claim and a header naming a tenant: 400, the header does not decide")
		void tokenWithoutClaimAndHeader() throws Exception {
			this.mvc.perform(get("/notes").header("X-Tenant-Id", "globex").with(jwt()))
				.andExpect(status().isBadRequest())
				.andExpect(jsonPath("$.title").value("Tenant not granted"))
				.andExpect(jsonPath("$.detail", containsString("claim tenant_id")));
		}

		@Test
		@DisplayName("a signed token for a user without the claim and a header: 400, nothing routed")
		void signedTokenWithoutClaimAndHeader() throws Exception {
			String token = NimbusJwtEncoder.withSecretKey(SecurityChain.KEY)
				.build()
				.encode(JwtEncoderParameters.from(JwsHeader.with(MacAlgorithm.HS256).build(),
						JwtClaimsSet.builder().subject("service").expiresAt(Instant.now().plusSeconds(300)).build()))
				.getTokenValue();
			this.mvc.perform(get("/notes").header("Authorization", "Bearer " + token).header("X-Tenant-Id", "globex"))
				.andExpect(status().isBadRequest())
				.andExpect(jsonPath("$.title").value("Tenant not granted"));
		}

		@Test
		@DisplayName("HTTP basic (no claims at all) and a header naming a tenant: 400, the header does not decide")
		void basicUserAndHeader() throws Exception {
			this.mvc.perform(get("/notes").header("X-Tenant-Id", "globex").with(httpBasic("acme", "secret")))
				.andExpect(status().isBadRequest())
				.andExpect(jsonPath("$.title").value("Tenant not granted"));
		}

		@Test
		@DisplayName("a token without the claim and no header: no tenant, tenant work answered 400")
		void tokenWithoutClaim() throws Exception {
			this.mvc.perform(get("/notes").with(jwt()))
				.andExpect(status().isBadRequest())
				.andExpect(jsonPath("$.title").value("No tenant"));
		}

	}

	/** The application's resolvers: a query parameter first, then a sub-domain of example.com. */
	@Configuration(proxyBeanMethods = false)
	static class ApplicationResolvers {

		@Bean
		@Order(1)
		TenantResolver queryParameter() {
			return (HttpServletRequest request) -> request.getParameter("tenant");
		}

		@Bean
		@Order(2)
		TenantResolver subdomain() {
			return TenantResolvers.subdomain("example.com");
		}

	}

	@Nested
	@SpringBootTest(classes = { TestApplication.class, NotesPages.class }, properties = {
			"shard-tenancy.directory.url=jdbc:h2:mem:resolve-own-directory" + H2,
			"shard-tenancy.shards.shard-1.url=jdbc:h2:mem:resolve-own-shard-1" + H2,
			"shard-tenancy.liquibase.shard-changelogs=db/test-shard.xml", "shard-tenancy.sync.interval=1h",
			"spring.jpa.open-in-view=false", "shard-tenancy.web.access.policy=none" })
	@Import(ApplicationResolvers.class)
	@AutoConfigureMockMvc
	@DisplayName("with the application's TenantResolver beans")
	class ApplicationBeans extends WebApp {




		@Test
		@DisplayName("they replace the configured header resolver, in their @Order")
		void replaceTheConfiguredOnes() throws Exception {
			assertThat(this.filter.resolvers()).hasSize(2);
			assertThat(this.filter.resolvers().get(1)).hasToString("sub-domain of example.com");
			this.mvc.perform(get("/notes").header("X-Tenant-Id", "acme"))
				.andExpect(status().isBadRequest())
				.andExpect(jsonPath("$.title").value("No tenant"));
		}

		@Test
		@DisplayName("the sub-domain names the tenant; the base domain and deeper hosts name none")
		void subdomain() throws Exception {
			this.mvc.perform(get("http://globex.example.com/notes"))
				.andExpect(status().isOk())
				.andExpect(jsonPath("$.tenant").value("globex"));
			this.mvc.perform(get("http://ACME.Example.COM/notes")).andExpect(jsonPath("$.tenant").value("acme"));
			this.mvc.perform(get("http://example.com/notes")).andExpect(status().isBadRequest());
			this.mvc.perform(get("http://www.acme.example.com/notes")).andExpect(status().isBadRequest());
			this.mvc.perform(get("http://acme.example.org/notes")).andExpect(status().isBadRequest());
		}

		@Test
		@DisplayName("the application's resolver and the sub-domain must agree")
		void applicationResolverAndSubdomain() throws Exception {
			this.mvc.perform(get("http://acme.example.com/notes").param("tenant", "acme"))
				.andExpect(jsonPath("$.tenant").value("acme"));
			this.mvc.perform(get("http://acme.example.com/notes").param("tenant", "globex"))
				.andExpect(status().isBadRequest())
				.andExpect(jsonPath("$.title").value("Tenant mismatch"));
		}

	}

}
