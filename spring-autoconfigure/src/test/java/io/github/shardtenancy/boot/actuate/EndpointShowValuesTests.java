package io.github.shardtenancy.boot.actuate;

import java.time.Duration;
import java.util.List;
import java.util.Map;

import io.github.shardtenancy.LoadMeasure;
import io.github.shardtenancy.MoveSettings;
import io.github.shardtenancy.MoveStep;
import io.github.shardtenancy.RebalanceProposal;
import io.github.shardtenancy.RebalanceResult;
import io.github.shardtenancy.TenantAdmin;
import io.github.shardtenancy.TenantContext;
import io.github.shardtenancy.TenantMover;
import io.github.shardtenancy.boot.opsapp.AuditService;
import io.github.shardtenancy.boot.opsapp.OpsApplication;
import io.github.shardtenancy.boot.testapp.SecurityFilterRegistration;
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
import org.springframework.http.MediaType;
import org.springframework.security.config.Customizer;
import org.springframework.security.config.annotation.web.builders.HttpSecurity;
import org.springframework.security.config.annotation.web.configuration.EnableWebSecurity;
import org.springframework.security.core.userdetails.User;
import org.springframework.security.provisioning.InMemoryUserDetailsManager;
import org.springframework.security.web.SecurityFilterChain;
import org.springframework.test.web.servlet.MockMvc;
import org.springframework.test.web.servlet.MvcResult;
import org.springframework.test.web.servlet.request.MockHttpServletRequestBuilder;
import org.springframework.test.web.servlet.request.RequestPostProcessor;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.hamcrest.Matchers.everyItem;
import static org.hamcrest.Matchers.greaterThan;
import static org.hamcrest.Matchers.hasItem;
import static org.hamcrest.Matchers.is;
import static org.hamcrest.Matchers.oneOf;
import static org.springframework.security.test.web.servlet.request.SecurityMockMvcRequestPostProcessors.httpBasic;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.get;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.content;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.jsonPath;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.status;

/**
 * Whether the {@code shardtenancy} and {@code shardtenancyload} endpoints show tenant ids
 * ({@code management.endpoint.shardtenancy.show-values}, {@code management.endpoint.shardtenancyload.show-values} and
 * their {@code roles}), over HTTP with Spring MVC, Actuator and two H2 shards: hidden by default (every tenant id
 * replaced by {@code ******}, and the one-tenant read answering a known and an unknown tenant alike), shown with
 * {@code always}, and with {@code when-authorized} shown to a user of Spring Security's real filter chain (HTTP basic)
 * holding the role, hidden from one without it and from an anonymous request.
 */
class EndpointShowValuesTests {

	static final String H2 = ";DB_CLOSE_DELAY=-1;LOCK_TIMEOUT=10000";

	static final String SANITIZED = "******";

	/** A tenant on shard-1 with traffic and every row of its shard: hot, in the traffic, in a proposal. */
	static final String KNOWN = "known-tenant";

	static final String UNKNOWN = "unknown-tenant";

	/** Properties every context below shares: traffic counted, a rebalancer that proposes (three tenants to none). */
	abstract static class Endpoints {

		@Autowired
		MockMvc mvc;

		@Autowired
		TenantAdmin admin;

		@Autowired
		AuditService audit;

		@BeforeEach
		void tenants() {
			for (String tenant : List.of(KNOWN, "quiet-1", "quiet-2")) {
				if (this.admin.find(tenant).isEmpty()) {
					this.admin.create(tenant, "shard-1");
				}
			}
			TenantContext.runAs(KNOWN, () -> this.audit.record("entry"));
		}

		MvcResult read(String path, RequestPostProcessor... who) throws Exception {
			return this.mvc.perform(withAll(get(path), who)).andReturn();
		}

		/**
		 * The one-tenant read answers a known and an unknown tenant with the same 404: the bodies differ only in the
		 * {@code instance} Spring MVC sets to the request's own path.
		 */
		void tenantLookupIsNoOracle(RequestPostProcessor... who) throws Exception {
			MvcResult known = read("/actuator/shardtenancy/" + KNOWN, who);
			MvcResult unknown = read("/actuator/shardtenancy/" + UNKNOWN, who);
			assertThat(known.getResponse().getStatus()).isEqualTo(404);
			assertThat(unknown.getResponse().getStatus()).isEqualTo(404);
			assertThat(known.getResponse().getContentType()).isEqualTo(unknown.getResponse().getContentType());
			assertThat(known.getResponse().getContentAsString().replace(KNOWN, "{tenant}"))
				.isEqualTo(unknown.getResponse().getContentAsString().replace(UNKNOWN, "{tenant}"))
				.contains("show-values", "\"instance\":\"/actuator/shardtenancy/{tenant}\"");
		}

		void tenantLookupShows(RequestPostProcessor... who) throws Exception {
			this.mvc.perform(withAll(get("/actuator/shardtenancy/" + KNOWN), who))
				.andExpect(status().isOk())
				.andExpect(jsonPath("$.tenant").value(KNOWN))
				.andExpect(jsonPath("$.owner").value("shard-1"));
			this.mvc.perform(withAll(get("/actuator/shardtenancy/" + UNKNOWN), who))
				.andExpect(status().isNotFound())
				.andExpect(content().contentTypeCompatibleWith(MediaType.APPLICATION_PROBLEM_JSON))
				.andExpect(jsonPath("$.tenant").value(UNKNOWN));
		}

		/** Traffic, hot tenants and the proposal name no tenant; shard ids and figures are there. */
		void loadIsSanitized(RequestPostProcessor... who) throws Exception {
			this.mvc.perform(withAll(get("/actuator/shardtenancyload/traffic"), who))
				.andExpect(status().isOk())
				.andExpect(jsonPath("$.tenants.length()").value(greaterThan(0)))
				.andExpect(jsonPath("$.tenants[*].tenantId", everyItem(is(SANITIZED))))
				.andExpect(jsonPath("$.tenants[*].shardId", hasItem("shard-1")))
				.andExpect(jsonPath("$.tenants[0].transactions").value(greaterThan(0)));
			this.mvc.perform(withAll(get("/actuator/shardtenancyload"), who))
				.andExpect(status().isOk())
				.andExpect(jsonPath("$.shards[0].shardId").value("shard-1"))
				.andExpect(jsonPath("$.hot.tenants[0].tenantId").value(SANITIZED))
				.andExpect(jsonPath("$.hot.tenants[0].shardId").value("shard-1"))
				.andExpect(jsonPath("$.hot.tenants[0].share").value(greaterThan(0.5)));
			MvcResult proposal = this.mvc.perform(withAll(get("/actuator/shardtenancyload/proposal"), who))
				.andExpect(status().isOk())
				.andExpect(jsonPath("$.proposal.moves.length()").value(greaterThan(0)))
				.andExpect(jsonPath("$.proposal.moves[*].tenantId", everyItem(is(SANITIZED))))
				.andExpect(jsonPath("$.proposal.moves[0].sourceShardId").value("shard-1"))
				.andReturn();
			assertThat(proposal.getResponse().getContentAsString()).doesNotContain(KNOWN, "quiet-");
		}

		void loadShows(RequestPostProcessor... who) throws Exception {
			this.mvc.perform(withAll(get("/actuator/shardtenancyload/traffic"), who))
				.andExpect(status().isOk())
				.andExpect(jsonPath("$.tenants[*].tenantId", hasItem(KNOWN)));
			this.mvc.perform(withAll(get("/actuator/shardtenancyload"), who))
				.andExpect(status().isOk())
				.andExpect(jsonPath("$.hot.tenants[0].tenantId").value(KNOWN));
			this.mvc.perform(withAll(get("/actuator/shardtenancyload/proposal"), who))
				.andExpect(status().isOk())
				.andExpect(jsonPath("$.proposal.moves[*].tenantId", everyItem(oneOf(KNOWN, "quiet-1", "quiet-2"))));
		}

		private static MockHttpServletRequestBuilder withAll(MockHttpServletRequestBuilder request,
				RequestPostProcessor... who) {
			MockHttpServletRequestBuilder out = request;
			for (RequestPostProcessor processor : who) {
				out = out.with(processor);
			}
			return out;
		}

	}

	@Nested
	@SpringBootTest(classes = OpsApplication.class, properties = {
			"shard-tenancy.web.access.policy=none",
			"shard-tenancy.directory.url=jdbc:h2:mem:show-never-directory" + H2,
			"shard-tenancy.shards.shard-1.url=jdbc:h2:mem:show-never-shard-1" + H2,
			"shard-tenancy.shards.shard-2.url=jdbc:h2:mem:show-never-shard-2" + H2,
			"shard-tenancy.liquibase.shard-changelogs=db/ops-shard.xml", "shard-tenancy.sync.interval=1h",
			"shard-tenancy.actor=show-never-tests", "shard-tenancy.load.enabled=true",
			"shard-tenancy.load.hot-threshold=0.5", "shard-tenancy.rebalancer.enabled=true",
			"shard-tenancy.rebalancer.interval=1h", "shard-tenancy.rebalancer.band=0",
			"management.endpoints.web.exposure.include=shardtenancy,shardtenancyload" })
	@AutoConfigureMockMvc
	@DisplayName("by default (show-values never)")
	class Hidden extends Endpoints {

		@Autowired
		TenantMover mover;

		@Autowired
		ShardTenancyEndpoint endpoint;

		@Test
		@DisplayName("the one-tenant read answers a known and an unknown tenant with the same 404; an invalid id is still 400")
		void tenantLookup() throws Exception {
			tenantLookupIsNoOracle();
			this.mvc.perform(get("/actuator/shardtenancy/bad!id")).andExpect(status().isBadRequest());
			assertThat(this.endpoint.tenant(KNOWN)).as("the operation itself (JMX)").isNull();
		}

		@Test
		@DisplayName("traffic, hot tenants and proposals name no tenant; shard ids and figures are shown")
		void load() throws Exception {
			loadIsSanitized();
		}

		@Test
		@DisplayName("the timeline's moved tenant and its freeze window are ******")
		void timeline() throws Exception {
			String moved = "timeline-moved";
			this.admin.create(moved, "shard-2");
			TenantContext.runAs(moved, () -> this.audit.record("to move"));
			String moveId = this.mover.move(moved, "shard-1", MoveSettings.defaults());
			await("the move of " + moved + " ends").atMost(Duration.ofSeconds(60))
				.until(() -> this.mover.status(moveId).step().ordinal() >= MoveStep.FLIPPED.ordinal());
			MvcResult timeline = this.mvc.perform(get("/actuator/shardtenancy/timeline/60"))
				.andExpect(status().isOk())
				.andExpect(jsonPath("$.tenants[0].tenant").value(SANITIZED))
				.andExpect(jsonPath("$.tenants[0].moveId").value(moveId))
				.andExpect(jsonPath("$.tenants[0].sourceShard").value("shard-2"))
				.andExpect(jsonPath("$.freezes[0].tenant").value(SANITIZED))
				.andReturn();
			assertThat(timeline.getResponse().getContentAsString()).doesNotContain(moved);
			assertThat(this.endpoint.timeline("timeline", 60).tenants()).extracting(Timeline.TenantSeries::tenant)
				.as("the operation itself (JMX)")
				.containsOnly(SANITIZED);
		}

	}

	@Nested
	@SpringBootTest(classes = OpsApplication.class, properties = {
			"shard-tenancy.web.access.policy=none",
			"shard-tenancy.directory.url=jdbc:h2:mem:show-always-directory" + H2,
			"shard-tenancy.shards.shard-1.url=jdbc:h2:mem:show-always-shard-1" + H2,
			"shard-tenancy.shards.shard-2.url=jdbc:h2:mem:show-always-shard-2" + H2,
			"shard-tenancy.liquibase.shard-changelogs=db/ops-shard.xml", "shard-tenancy.sync.interval=1h",
			"shard-tenancy.actor=show-always-tests", "shard-tenancy.load.enabled=true",
			"shard-tenancy.load.hot-threshold=0.5", "shard-tenancy.rebalancer.enabled=true",
			"shard-tenancy.rebalancer.interval=1h", "shard-tenancy.rebalancer.band=0",
			"management.endpoints.web.exposure.include=shardtenancy,shardtenancyload",
			"management.endpoint.shardtenancy.show-values=always",
			"management.endpoint.shardtenancyload.show-values=always" })
	@AutoConfigureMockMvc
	@DisplayName("with show-values always")
	class Always extends Endpoints {

		@Test
		@DisplayName("the one-tenant read answers 200 for a known tenant and 404 naming an unknown one")
		void tenantLookup() throws Exception {
			tenantLookupShows();
		}

		@Test
		@DisplayName("traffic, hot tenants and proposals name the tenants")
		void load() throws Exception {
			loadShows();
		}

	}

	@Nested
	@SpringBootTest(classes = { OpsApplication.class, OperatorsOnly.class }, properties = {
			"shard-tenancy.web.access.policy=none",
			"shard-tenancy.directory.url=jdbc:h2:mem:show-authorized-directory" + H2,
			"shard-tenancy.shards.shard-1.url=jdbc:h2:mem:show-authorized-shard-1" + H2,
			"shard-tenancy.shards.shard-2.url=jdbc:h2:mem:show-authorized-shard-2" + H2,
			"shard-tenancy.liquibase.shard-changelogs=db/ops-shard.xml", "shard-tenancy.sync.interval=1h",
			"shard-tenancy.actor=show-authorized-tests", "shard-tenancy.load.enabled=true",
			"shard-tenancy.load.hot-threshold=0.5", "shard-tenancy.rebalancer.enabled=true",
			"shard-tenancy.rebalancer.interval=1h", "shard-tenancy.rebalancer.band=0",
			"management.endpoints.web.exposure.include=shardtenancy,shardtenancyload",
			"management.endpoint.shardtenancy.show-values=when-authorized",
			"management.endpoint.shardtenancy.roles=OPS",
			"management.endpoint.shardtenancyload.show-values=when-authorized",
			"management.endpoint.shardtenancyload.roles=OPS" })
	@AutoConfigureMockMvc
	@DisplayName("with show-values when-authorized and roles OPS, behind Spring Security")
	class WhenAuthorized extends Endpoints {

		@Test
		@DisplayName("a user with the role OPS is shown the tenant and the load's tenants")
		void operatorIsShown() throws Exception {
			tenantLookupShows(httpBasic("operator", "secret"));
			loadShows(httpBasic("operator", "secret"));
		}

		@Test
		@DisplayName("an authenticated user without the role is not: same 404 for known and unknown, ****** in the load")
		void otherUserIsNotShown() throws Exception {
			assertThat(read("/actuator/shardtenancy", httpBasic("developer", "wrong")).getResponse().getStatus())
				.as("a wrong password is refused by the filter chain")
				.isEqualTo(401);
			tenantLookupIsNoOracle(httpBasic("developer", "secret"));
			loadIsSanitized(httpBasic("developer", "secret"));
		}

		@Test
		@DisplayName("an anonymous request is not shown either")
		void anonymousIsNotShown() throws Exception {
			tenantLookupIsNoOracle();
			loadIsSanitized();
		}

	}

	@Test
	@DisplayName("a sanitized rebalancing result keeps every skipped and failed move, under distinct keys, and cuts the id out of the reasons")
	void sanitizedResult() {
		RebalanceProposal.Move move = new RebalanceProposal.Move("t-2", "shard-1", "shard-2", 1);
		RebalanceProposal proposal = new RebalanceProposal(LoadMeasure.TENANTS, 0, List.of(), List.of(move), List.of(),
				1, 1, true, 7);
		RebalanceResult result = new RebalanceResult(1, List.of(move),
				Map.of("t-1", "pinned", "t-2", "Tenant 't-2' was moved since; t-22 was not"),
				Map.of("t-3", "Tenant t-3 refused by shard-2"), 1, true, proposal);

		RebalanceResult sanitized = TenantIdSanitizer.result(result);

		assertThat(sanitized.moved()).extracting(RebalanceProposal.Move::tenantId).containsExactly(SANITIZED);
		assertThat(sanitized.last().moves()).extracting(RebalanceProposal.Move::tenantId).containsExactly(SANITIZED);
		assertThat(sanitized.skipped()).hasSize(2)
			.containsKeys(SANITIZED + "-1", SANITIZED + "-2")
			.containsValues("pinned", "Tenant '******' was moved since; t-22 was not");
		assertThat(sanitized.failed()).containsExactly(Map.entry(SANITIZED + "-1", "Tenant ****** refused by shard-2"));
		assertThat(sanitized.last().directoryVersion()).isEqualTo(7);
	}

	/**
	 * Spring Security's filter chain at Spring Boot's order: the endpoints are open to everyone, HTTP basic
	 * authenticates {@code operator} (role OPS) and {@code developer} (role DEV).
	 */
	@Configuration(proxyBeanMethods = false)
	@EnableWebSecurity
	static class OperatorsOnly {

		@Bean
		SecurityFilterChain actuatorChain(HttpSecurity http) throws Exception {
			return http.authorizeHttpRequests((requests) -> requests.anyRequest().permitAll())
				.httpBasic(Customizer.withDefaults())
				.csrf((csrf) -> csrf.disable())
				.build();
		}

		@Bean
		InMemoryUserDetailsManager operators() {
			return new InMemoryUserDetailsManager(
					User.withUsername("operator").password("{noop}secret").roles("OPS").build(),
					User.withUsername("developer").password("{noop}secret").roles("DEV").build());
		}

		@Bean
		DelegatingFilterProxyRegistrationBean actuatorChainRegistration() {
			return SecurityFilterRegistration.atBootOrder();
		}

	}

}
