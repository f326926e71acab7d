package io.github.shardtenancy.boot.actuate;

import java.time.Duration;
import java.util.Map;
import java.util.TreeMap;

import io.github.shardtenancy.ShardTenancy;
import io.github.shardtenancy.TenantAdmin;
import io.github.shardtenancy.TenantContext;
import io.github.shardtenancy.boot.RebalancerRuns;
import io.github.shardtenancy.boot.opsapp.AuditService;
import io.github.shardtenancy.boot.opsapp.OpsApplication;
import io.github.shardtenancy.micrometer.TenantLoadMetrics;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.test.web.servlet.MockMvc;
import org.springframework.test.web.servlet.setup.MockMvcBuilders;
import org.springframework.web.context.WebApplicationContext;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.hamcrest.Matchers.greaterThan;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.get;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.post;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.jsonPath;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.status;

/**
 * The {@code shardtenancyload} endpoint over HTTP (Spring MVC, Actuator, Spring Data JPA through
 * {@code @Transactional}, three H2 shards) with traffic counted ({@code shard-tenancy.load.enabled}) and the
 * rebalancer allowed to execute: the figures after writes made through a transactional service, a dry-run proposal,
 * an execution started by POST that balances the shards with real moves, and the traffic gauges.
 */
@SpringBootTest(classes = OpsApplication.class, properties = {
		"shard-tenancy.web.access.policy=none",
		"shard-tenancy.directory.url=jdbc:h2:mem:load-ep-directory;DB_CLOSE_DELAY=-1;LOCK_TIMEOUT=10000",
		"shard-tenancy.shards.shard-1.url=jdbc:h2:mem:load-ep-shard-1;DB_CLOSE_DELAY=-1;LOCK_TIMEOUT=10000",
		"shard-tenancy.shards.shard-2.url=jdbc:h2:mem:load-ep-shard-2;DB_CLOSE_DELAY=-1;LOCK_TIMEOUT=10000",
		"shard-tenancy.shards.shard-3.url=jdbc:h2:mem:load-ep-shard-3;DB_CLOSE_DELAY=-1;LOCK_TIMEOUT=10000",
		"shard-tenancy.liquibase.shard-changelogs=db/ops-shard.xml", "shard-tenancy.sync.interval=1h",
		"shard-tenancy.retry.max-delay=20ms", "shard-tenancy.actor=load-endpoint-tests",
		"shard-tenancy.load.enabled=true", "shard-tenancy.load.hot-threshold=0.6",
		"shard-tenancy.rebalancer.enabled=true", "shard-tenancy.rebalancer.execute=true",
		"shard-tenancy.rebalancer.interval=1h", "shard-tenancy.rebalancer.band=0",
		"shard-tenancy.rebalancer.max-concurrent-moves=2",
		"management.endpoints.web.exposure.include=shardtenancy,shardtenancyload",
		"management.endpoint.shardtenancyload.access=unrestricted",
		"management.endpoint.shardtenancyload.show-values=always" })
class ShardTenancyLoadEndpointWebTests {

	@Autowired
	private TenantAdmin admin;

	@Autowired
	private AuditService audit;

	@Autowired
	private ShardTenancy tenancy;

	@Autowired
	private RebalancerRuns runs;

	@Autowired
	private TenantLoadMetrics metrics;

	@Autowired
	private WebApplicationContext context;

	private MockMvc mvc;

	@BeforeEach
	void mockMvc() {
		this.mvc = MockMvcBuilders.webAppContextSetup(this.context).build();
	}

	@Test
	@DisplayName("figures, a dry-run proposal, a POST that balances the shards with real moves, and the gauges")
	void figuresProposalExecution() throws Exception {
		for (int i = 0; i < 6; i++) {
			String tenant = "load-" + i;
			this.admin.create(tenant, "shard-1");
			for (int n = 0; n <= i; n++) {
				TenantContext.runAs(tenant, () -> this.audit.record("entry"));
			}
		}
		this.mvc.perform(get("/actuator/shardtenancyload"))
			.andExpect(status().isOk())
			.andExpect(jsonPath("$.tracking").value(true))
			.andExpect(jsonPath("$.shards[0].shardId").value("shard-1"))
			.andExpect(jsonPath("$.shards[0].tenants").value(6))
			.andExpect(jsonPath("$.shards[0].rowsStored").value(21))
			.andExpect(jsonPath("$.shards[0].transactions").value(21))
			.andExpect(jsonPath("$.shards[0].rowsWritten").value(21))
			.andExpect(jsonPath("$.shards[1].tenants").value(0))
			.andExpect(jsonPath("$.hot.measure").value("ROWS"))
			.andExpect(jsonPath("$.hot.tenants").isEmpty());
		this.mvc.perform(get("/actuator/shardtenancyload/traffic"))
			.andExpect(status().isOk())
			.andExpect(jsonPath("$.tenants[0].tenantId").value("load-5"))
			.andExpect(jsonPath("$.tenants[0].transactions").value(6))
			.andExpect(jsonPath("$.tenants[0].rowsWritten").value(6));
		this.mvc.perform(get("/actuator/shardtenancyload/proposal"))
			.andExpect(status().isOk())
			.andExpect(jsonPath("$.executionAllowed").value(true))
			.andExpect(jsonPath("$.proposal.measure").value("TENANTS"))
			.andExpect(jsonPath("$.proposal.moves.length()").value(3))
			.andExpect(jsonPath("$.proposal.balancedAfter").value(true));
		assertThat(tenantsPerShard()).as("a proposal moves nothing").containsEntry("shard-1", 6L);

		this.mvc.perform(post("/actuator/shardtenancyload"))
			.andExpect(status().isOk())
			.andExpect(jsonPath("$.proposal.moves.length()").value(3));
		await("the rebalancing execution ends").atMost(Duration.ofSeconds(60))
			.until(() -> this.runs.lastResult() != null && !this.runs.executing());
		assertThat(this.runs.lastResult().failed()).isEmpty();
		assertThat(this.runs.lastResult().moved()).hasSize(3);
		assertThat(this.runs.lastResult().balanced()).isTrue();
		// Band 0 still allows one tenant either side of the median: 3, 2, 1 is balanced.
		assertThat(tenantsPerShard()).isEqualTo(new TreeMap<>(Map.of("shard-1", 3L, "shard-2", 2L, "shard-3", 1L)));
		this.mvc.perform(get("/actuator/shardtenancyload/last"))
			.andExpect(status().isOk())
			.andExpect(jsonPath("$.result.moved.length()").value(3))
			.andExpect(jsonPath("$.executing").value(false));
		this.mvc.perform(get("/actuator/shardtenancyload/nope")).andExpect(status().isBadRequest());

		MeterRegistry registry = new SimpleMeterRegistry();
		this.metrics.bindTo(registry);
		assertThat(registry.get("shardtenancy.load.transactions").tag("shard", "shard-1").gauge().value())
			.isGreaterThanOrEqualTo(21);

		// The hot-tenant report: a tenant holding more than 0.6 of its shard's rows is named.
		this.admin.create("whale", "shard-3");
		this.admin.create("minnow", "shard-3");
		for (int n = 0; n < 8; n++) {
			TenantContext.runAs("whale", () -> this.audit.record("big"));
		}
		TenantContext.runAs("minnow", () -> this.audit.record("small"));
		this.mvc.perform(get("/actuator/shardtenancyload"))
			.andExpect(status().isOk())
			.andExpect(jsonPath("$.hot.threshold").value(0.6))
			// shard-2 holds load-0 (1 row) and load-2 (3 rows); shard-3 load-1 (2 rows), whale (8) and minnow (1).
			.andExpect(jsonPath("$.hot.tenants.length()").value(2))
			.andExpect(jsonPath("$.hot.tenants[0].tenantId").value("load-2"))
			.andExpect(jsonPath("$.hot.tenants[0].share").value(0.75))
			.andExpect(jsonPath("$.hot.tenants[1].tenantId").value("whale"))
			.andExpect(jsonPath("$.hot.tenants[1].shardId").value("shard-3"))
			.andExpect(jsonPath("$.hot.tenants[1].load").value(8))
			.andExpect(jsonPath("$.hot.tenants[1].shardLoad").value(11))
			.andExpect(jsonPath("$.hot.tenants[1].share").value(greaterThan(0.6)));
	}

	private Map<String, Long> tenantsPerShard() {
		Map<String, Long> counts = new TreeMap<>();
		this.tenancy.load().shards(this.tenancy.load().measure()).forEach(s -> counts.put(s.shardId(), s.tenants()));
		return counts;
	}

}
