package io.github.shardtenancy.boot.actuate;

import java.time.Duration;
import java.util.List;
import java.util.Map;

import io.github.shardtenancy.InstanceSettings;
import io.github.shardtenancy.ShardTenancy;
import io.github.shardtenancy.boot.opsapp.OpsApplication;
import io.github.shardtenancy.micrometer.InstanceSkewMetrics;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.test.web.servlet.MockMvc;
import org.springframework.test.web.servlet.setup.MockMvcBuilders;
import org.springframework.web.context.WebApplicationContext;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.get;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.jsonPath;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.status;

/**
 * The instance heartbeat in a Boot application (Spring MVC, Actuator, two H2 shards): {@code shard-tenancy.instances.*}
 * reach the tenancy, {@code GET /actuator/shardtenancyinstances} lists the instances with a second tenancy on the same
 * directory, the health indicator carries the skew as a detail and stays UP, and the skew gauges are bound.
 */
@SpringBootTest(classes = OpsApplication.class, properties = {
		"shard-tenancy.web.access.policy=none",
		"shard-tenancy.directory.url=jdbc:h2:mem:inst-directory;DB_CLOSE_DELAY=-1;LOCK_TIMEOUT=10000",
		"shard-tenancy.shards.shard-1.url=jdbc:h2:mem:inst-shard-1;DB_CLOSE_DELAY=-1;LOCK_TIMEOUT=10000",
		"shard-tenancy.shards.shard-2.url=jdbc:h2:mem:inst-shard-2;DB_CLOSE_DELAY=-1;LOCK_TIMEOUT=10000",
		"shard-tenancy.liquibase.shard-changelogs=db/ops-shard.xml", "shard-tenancy.actor=instances-tests",
		"shard-tenancy.instances.id=boot-instance", "shard-tenancy.instances.heartbeat-interval=200ms",
		"shard-tenancy.instances.gone-after=5s", "shard-tenancy.instances.max-lag=30s",
		"management.endpoints.web.exposure.include=shardtenancy,shardtenancyinstances" })
class InstancesEndpointWebTests {

	@Autowired
	private ShardTenancy tenancy;

	@Autowired
	private ShardTenancyHealthIndicator health;

	@Autowired
	private InstanceSkewMetrics skewMetrics;

	@Autowired
	private WebApplicationContext context;

	private MockMvc mvc;

	@BeforeEach
	void mockMvc() {
		this.mvc = MockMvcBuilders.webAppContextSetup(this.context).build();
	}

	@Test
	@DisplayName("the properties reach the tenancy; the endpoint lists this and a second instance with the skew; health stays UP with the detail; gauges bound")
	void instancesAreListed() throws Exception {
		InstanceSettings settings = this.tenancy.instances().settings();
		assertThat(this.tenancy.instances().instanceId()).isEqualTo("boot-instance");
		assertThat(settings.heartbeatInterval()).isEqualTo(Duration.ofMillis(200));
		assertThat(settings.maxLag()).isEqualTo(Duration.ofSeconds(30));

		try (ShardTenancy second = ShardTenancy.builder()
			.directory(this.tenancy.directoryDataSource())
			.shard("shard-1", this.tenancy.topology().dataSource("shard-1"))
			.registerShards(false)
			.prepareShardsOnStart(false)
			.instances(InstanceSettings.defaults().withInstanceId("second-instance"))
			.build()) {
			second.start();
			await().atMost(Duration.ofSeconds(20)).untilAsserted(() -> this.mvc
				.perform(get("/actuator/shardtenancyinstances"))
				.andExpect(status().isOk())
				.andExpect(jsonPath("$.thisInstance").value("boot-instance"))
				.andExpect(jsonPath("$.live").value(2))
				.andExpect(jsonPath("$.lagging").value(0))
				.andExpect(jsonPath("$.skew").value(0))
				.andExpect(jsonPath("$.directoryVersion").isNumber())
				.andExpect(jsonPath("$.instances[0].instanceId").value("boot-instance"))
				.andExpect(jsonPath("$.instances[0].state").value("LIVE"))
				.andExpect(jsonPath("$.instances[1].instanceId").value("second-instance"))
				.andExpect(jsonPath("$.instances[1].appliedVersion").isNumber()));
		}
		this.mvc.perform(get("/actuator/shardtenancyinstances"))
			.andExpect(status().isOk())
			.andExpect(jsonPath("$.live").value(1))
			.andExpect(jsonPath("$.gone").value(1))
			.andExpect(jsonPath("$.instances[1].state").value("GONE"));

		await().atMost(Duration.ofSeconds(20)).untilAsserted(() -> {
			var health = this.health.health();
			assertThat(health.getStatus()).isEqualTo(Status.UP);
			assertThat(health.getDetails().get("instances")).isInstanceOfSatisfying(Map.class, (instances) -> {
				assertThat(instances.get("live")).isEqualTo(1);
				assertThat(instances.get("gone")).isEqualTo(1);
				assertThat(instances.get("lagging")).isEqualTo(List.of());
				assertThat(instances.get("skew")).isEqualTo(0L);
			});
		});

		SimpleMeterRegistry registry = new SimpleMeterRegistry();
		this.skewMetrics.bindTo(registry);
		assertThat(registry.get("shardtenancy.instances.live").gauge().value()).isEqualTo(1);
		assertThat(registry.get("shardtenancy.instances.version.skew").gauge().value()).isZero();
	}

}
