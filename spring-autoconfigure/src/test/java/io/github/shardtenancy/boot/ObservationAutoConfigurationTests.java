package io.github.shardtenancy.boot;

import java.util.concurrent.atomic.AtomicInteger;

import io.github.shardtenancy.DirectoryEntry;
import io.github.shardtenancy.RetriesExhaustedException;
import io.github.shardtenancy.ShardTopology;
import io.github.shardtenancy.TenantAdmin;
import io.github.shardtenancy.TenantContext;
import io.github.shardtenancy.boot.testapp.NoteRepository;
import io.github.shardtenancy.boot.testapp.NoteService;
import io.github.shardtenancy.boot.testapp.TestApplication;
import io.github.shardtenancy.internal.fence.FenceState;
import io.github.shardtenancy.internal.fence.ShardFence;
import io.github.shardtenancy.micrometer.observation.ShardTenancyObservationContext;
import io.micrometer.observation.tck.TestObservationRegistry;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;

import static io.micrometer.observation.tck.TestObservationRegistryAssert.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The observations wired by the auto-configuration when the application has an {@code ObservationRegistry}: a
 * Spring Data repository call and a {@code @Transactional} service method, retried by the automatic retry, on two H2
 * shards with the real fence. The registry is Micrometer's {@link TestObservationRegistry}.
 */
@SpringBootTest(classes = TestApplication.class, properties = {
		"shard-tenancy.web.access.policy=none",
		"shard-tenancy.directory.url=jdbc:h2:mem:observation-directory;DB_CLOSE_DELAY=-1;LOCK_TIMEOUT=10000",
		"shard-tenancy.shards.shard-1.url=jdbc:h2:mem:observation-shard-1;DB_CLOSE_DELAY=-1;LOCK_TIMEOUT=10000",
		"shard-tenancy.shards.shard-2.url=jdbc:h2:mem:observation-shard-2;DB_CLOSE_DELAY=-1;LOCK_TIMEOUT=10000",
		"shard-tenancy.liquibase.shard-changelogs=db/test-shard.xml",
		"shard-tenancy.sync.interval=1h",
		"shard-tenancy.retry.max-attempts=2",
		"shard-tenancy.retry.max-delay=20ms",
		"shard-tenancy.actor=tests" })
@Import(ObservationAutoConfigurationTests.Observations.class)
class ObservationAutoConfigurationTests {

	private static final AtomicInteger TENANTS = new AtomicInteger();

	@Autowired
	private TestObservationRegistry registry;

	@Autowired
	private TenantAdmin admin;

	@Autowired
	private ShardTopology topology;

	@Autowired
	private NoteRepository notes;

	@Autowired
	private NoteService noteService;

	@BeforeEach
	void clear() {
		this.registry.clear();
	}

	@Test
	@DisplayName("a repository call is one shardtenancy.retry observation with one shardtenancy.transaction child, "
			+ "routed to shard-1, tenant high-cardinality")
	void repositoryCallIsObserved() {
		String tenant = "observed-" + TENANTS.incrementAndGet();
		this.admin.create(tenant, "shard-1");
		this.registry.clear();

		TenantContext.runAs(tenant, () -> this.notes.count());

		assertThat(this.registry).hasNumberOfObservationsWithNameEqualTo("shardtenancy.retry", 1)
			.hasNumberOfObservationsWithNameEqualTo("shardtenancy.transaction", 1)
			.hasObservationWithNameEqualTo("shardtenancy.transaction")
			.that()
			.hasLowCardinalityKeyValue("shard", "shard-1")
			.hasLowCardinalityKeyValue("outcome", "success")
			.hasHighCardinalityKeyValue("tenant", tenant)
			.doesNotHaveLowCardinalityKeyValueWithKey("tenant")
			.hasParentObservationContextMatching((parent) -> parent instanceof ShardTenancyObservationContext.Retry);
	}

	@Test
	@DisplayName("a @Transactional method the fence rejects on every attempt: one rejected shardtenancy.transaction "
			+ "per attempt (reason STALE) inside one exhausted shardtenancy.retry")
	void rejectedAttemptsAreObserved() {
		String tenant = "observed-" + TENANTS.incrementAndGet();
		DirectoryEntry entry = this.admin.create(tenant, "shard-1");
		ShardFence.set(this.topology.dataSource("shard-1"), "shard-1", tenant, FenceState.OWNED,
				entry.version() + 1_000);
		this.registry.clear();

		assertThatThrownBy(() -> TenantContext.runAs(tenant, () -> this.noteService.persistAndFlush("never")))
			.isInstanceOf(RetriesExhaustedException.class);

		assertThat(this.registry).hasNumberOfObservationsWithNameEqualTo("shardtenancy.transaction", 2)
			.forAllObservationsWithNameEqualTo("shardtenancy.transaction",
					(observation) -> observation.hasLowCardinalityKeyValue("outcome", "rejected")
						.hasLowCardinalityKeyValue("reason", "STALE")
						.hasLowCardinalityKeyValue("shard", "shard-1")
						.hasError())
			.hasObservationWithNameEqualTo("shardtenancy.retry")
			.that()
			.hasLowCardinalityKeyValue("outcome", "exhausted")
			.hasHighCardinalityKeyValue("attempts", "2");
	}

	@TestConfiguration(proxyBeanMethods = false)
	static class Observations {

		@Bean
		TestObservationRegistry observationRegistry() {
			return TestObservationRegistry.create();
		}

	}

}
