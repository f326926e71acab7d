package io.github.shardtenancy.micrometer.observation;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.regex.Pattern;

import io.github.shardtenancy.DirectoryEntry;
import io.github.shardtenancy.RetriesExhaustedException;
import io.github.shardtenancy.ShardTenancy;
import io.github.shardtenancy.TenantContext;
import io.github.shardtenancy.TenantTable;
import io.github.shardtenancy.internal.fence.FenceState;
import io.github.shardtenancy.internal.fence.ShardFence;
import io.github.shardtenancy.liquibase.ShardTenancyMigrations;
import io.github.shardtenancy.micrometer.ShardTenancyMetrics;
import io.github.shardtenancy.retry.RetrySettings;
import io.github.shardtenancy.retry.ShardTenancyRetry;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.observation.DefaultMeterObservationHandler;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;
import io.micrometer.observation.tck.TestObservationRegistry;
import com.zaxxer.hikari.HikariConfig;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import static io.micrometer.observation.tck.TestObservationRegistryAssert.assertThat;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The observations of retried work, its attempts and move steps, on a real tenancy with two H2 shards and the real
 * fence, recorded by Micrometer's own {@link TestObservationRegistry}; and the meters they become, checked against
 * Micrometer's naming conventions.
 */
class ShardTenancyObservationsTest {

	/** Lower case words separated by dots (Micrometer's naming convention); the same rule for tag keys. */
	private static final Pattern NAME = Pattern.compile("[a-z][a-z0-9_]*(\\.[a-z][a-z0-9_]*)*");

	/** Units that must not end a timer's name: the registry adds the base unit itself. */
	private static final Pattern UNIT_SUFFIX = Pattern.compile(".*\\.(seconds|secs|millis|ms|nanos|ns|time|duration)$");

	private static final RetrySettings FAST = RetrySettings.defaults()
		.withMaxAttempts(2)
		.withBackoff(Duration.ofMillis(1), 2.0, Duration.ofMillis(5))
		.withJitter(Duration.ZERO);

	private ShardTenancy tenancy;

	private DataSource shard1;

	private static HikariConfig pool(String name, String database) {
		HikariConfig config = new HikariConfig();
		config.setJdbcUrl("jdbc:h2:mem:" + name + "-" + database + ";DB_CLOSE_DELAY=-1;LOCK_TIMEOUT=10000");
		config.setMaximumPoolSize(4);
		return config;
	}

	private ShardTenancy start(ObservationRegistry registry, boolean tenantLowCardinality) throws Exception {
		String name = "observations-" + UUID.randomUUID();
		this.tenancy = ShardTenancy.builder()
			.directory(pool(name, "directory"))
			.shard("shard-1", pool(name, "shard-1"))
			.shard("shard-2", pool(name, "shard-2"))
			.shardMigrator((shardId, dataSource, dialect) -> ShardTenancyMigrations.migrateShard(dataSource, shardId,
					List.of()))
			.tenantTables(List.of(new TenantTable("memo", "tenant_id")))
			.build();
		ShardTenancyMigrations.migrateDirectory(this.tenancy.directoryDataSource());
		for (String shardId : this.tenancy.topology().shardIds()) {
			DataSource shard = this.tenancy.topology().dataSource(shardId);
			ShardTenancyMigrations.migrateShard(shard, shardId, List.of());
			try (Connection connection = shard.getConnection(); Statement statement = connection.createStatement()) {
				statement.execute("create table memo (id int primary key, tenant_id varchar(64) not null)");
			}
		}
		this.tenancy.start();
		this.shard1 = this.tenancy.topology().dataSource("shard-1");
		this.tenancy.addObserver(new ShardTenancyObservations(registry, tenantLowCardinality));
		return this.tenancy;
	}

	@AfterEach
	void stop() {
		if (this.tenancy != null) {
			this.tenancy.close();
		}
	}

	private ShardTenancyRetry retry() {
		return new ShardTenancyRetry(this.tenancy.router()::invalidate, FAST, this.tenancy.observer());
	}

	/** One routed transaction through the tenant-routing DataSource. */
	private Integer selectOne() throws Exception {
		try (Connection connection = this.tenancy.dataSource().getConnection();
				Statement statement = connection.createStatement();
				ResultSet result = statement.executeQuery("select 1")) {
			result.next();
			return result.getInt(1);
		}
	}

	@Test
	@DisplayName("a successful unit of work is one shardtenancy.retry observation (outcome success) with one "
			+ "shardtenancy.transaction child on shard-1; the tenant is a high-cardinality key value only")
	void successfulWork() throws Exception {
		TestObservationRegistry registry = TestObservationRegistry.create();
		start(registry, false);
		this.tenancy.admin().create("acme", "shard-1");

		Integer one = TenantContext.callAs("acme", () -> retry().call(this::selectOne));

		assertThat(one).isEqualTo(1);
		assertThat(registry).hasNumberOfObservationsWithNameEqualTo("shardtenancy.retry", 1)
			.hasNumberOfObservationsWithNameEqualTo("shardtenancy.transaction", 1)
			.hasObservationWithNameEqualTo("shardtenancy.retry")
			.that()
			.hasBeenStarted()
			.hasBeenStopped()
			.hasLowCardinalityKeyValue("outcome", "success")
			.hasLowCardinalityKeyValue("reason", "none")
			.hasHighCardinalityKeyValue("tenant", "acme")
			.hasHighCardinalityKeyValue("attempts", "1")
			.doesNotHaveLowCardinalityKeyValueWithKey("tenant")
			.doesNotHaveError();
		assertThat(registry).hasObservationWithNameEqualTo("shardtenancy.transaction")
			.that()
			.hasBeenStopped()
			.hasLowCardinalityKeyValue("shard", "shard-1")
			.hasLowCardinalityKeyValue("outcome", "success")
			.hasHighCardinalityKeyValue("tenant", "acme")
			.hasHighCardinalityKeyValue("attempt", "1")
			.doesNotHaveLowCardinalityKeyValueWithKey("tenant")
			.hasParentObservationContextMatching(
					(context) -> context instanceof ShardTenancyObservationContext.Retry);
	}

	@Test
	@DisplayName("a tenant the fence rejects on every attempt: two shardtenancy.transaction observations, outcome "
			+ "rejected, reason STALE, with the error; the retry's outcome is exhausted")
	void exhaustedWork() throws Exception {
		TestObservationRegistry registry = TestObservationRegistry.create();
		start(registry, false);
		DirectoryEntry entry = this.tenancy.admin().create("stale", "shard-1");
		ShardFence.set(this.shard1, "shard-1", "stale", FenceState.OWNED, entry.version() + 1_000);

		assertThatThrownBy(() -> TenantContext.callAs("stale", () -> retry().call(this::selectOne)))
			.isInstanceOf(RetriesExhaustedException.class);

		assertThat(registry).hasNumberOfObservationsWithNameEqualTo("shardtenancy.transaction", 2)
			.forAllObservationsWithNameEqualTo("shardtenancy.transaction",
					(observation) -> observation.hasLowCardinalityKeyValue("outcome", "rejected")
						.hasLowCardinalityKeyValue("reason", "STALE")
						.hasLowCardinalityKeyValue("shard", "shard-1")
						.hasHighCardinalityKeyValue("tenant", "stale")
						.hasError());
		assertThat(registry).hasObservationWithNameEqualTo("shardtenancy.retry")
			.that()
			.hasLowCardinalityKeyValue("outcome", "exhausted")
			.hasLowCardinalityKeyValue("reason", "STALE")
			.hasHighCardinalityKeyValue("attempts", "2")
			.hasError();
	}

	@Test
	@DisplayName("a move is observed step by step (freeze, copy, verify, flip, clean), each with mover, source, "
			+ "target and outcome, the tenant and move id high-cardinality")
	void moveSteps() throws Exception {
		TestObservationRegistry registry = TestObservationRegistry.create();
		start(registry, false);
		this.tenancy.admin().create("moving", "shard-1");

		this.tenancy.admin().move("moving", "shard-2");

		assertThat(registry).hasHandledContextsThatSatisfy((contexts) -> {
			List<String> steps = contexts.stream()
				.filter((context) -> context instanceof ShardTenancyObservationContext.MoveStep)
				.map((context) -> ((ShardTenancyObservationContext.MoveStep) context).getStep())
				.toList();
			assertThat(steps).contains("freeze", "copy", "verify", "flip");
		});
		assertThat(registry).forAllObservationsWithNameEqualTo("shardtenancy.move.step",
				(observation) -> observation.hasLowCardinalityKeyValue("source", "shard-1")
					.hasLowCardinalityKeyValue("target", "shard-2")
					.hasLowCardinalityKeyValue("outcome", "success")
					.hasLowCardinalityKeyValueWithKey("mover")
					.hasHighCardinalityKeyValue("tenant", "moving")
					.hasHighCardinalityKeyValueWithKey("move.id")
					.doesNotHaveLowCardinalityKeyValueWithKey("tenant"));
	}

	@Test
	@DisplayName("every meter the library registers (its own and those its observations become) follows Micrometer's "
			+ "naming conventions, and no meter is tagged with a tenant by default")
	void metersFollowMicrometerNamingConventions() throws Exception {
		SimpleMeterRegistry meters = new SimpleMeterRegistry();
		ObservationRegistry registry = ObservationRegistry.create();
		registry.observationConfig().observationHandler(new DefaultMeterObservationHandler(meters));
		start(registry, false);
		ShardTenancyMetrics metrics = new ShardTenancyMetrics(this.tenancy.router());
		metrics.bindTo(meters);
		this.tenancy.addObserver(metrics);
		this.tenancy.admin().create("acme", "shard-1");
		DirectoryEntry stale = this.tenancy.admin().create("stale", "shard-1");
		ShardFence.set(this.shard1, "shard-1", "stale", FenceState.OWNED, stale.version() + 1_000);

		TenantContext.callAs("acme", () -> retry().call(this::selectOne));
		assertThatThrownBy(() -> TenantContext.callAs("stale", () -> retry().call(this::selectOne)))
			.isInstanceOf(RetriesExhaustedException.class);
		this.tenancy.admin().move("acme", "shard-2");

		List<Meter> ours = meters.getMeters()
			.stream()
			.filter((meter) -> meter.getId().getName().startsWith("shardtenancy."))
			.toList();
		assertThat(ours).extracting((meter) -> meter.getId().getName())
			.contains("shardtenancy.transaction", "shardtenancy.retry", "shardtenancy.move.step",
					"shardtenancy.fence.rejections", "shardtenancy.retries", "shardtenancy.moves");
		for (Meter meter : ours) {
			String name = meter.getId().getName();
			assertThat(name).as("meter name").matches(NAME);
			if (meter.getId().getType() == Meter.Type.TIMER || meter.getId().getType() == Meter.Type.LONG_TASK_TIMER) {
				assertThat(name).as("timer %s names no unit", name).doesNotMatch(UNIT_SUFFIX);
			}
			for (Tag tag : meter.getId().getTags()) {
				assertThat(tag.getKey()).as("tag key of %s", name).matches(NAME);
			}
			assertThat(meter.getId().getTag("tenant")).as("tenant tag on %s", name).isNull();
		}
		assertThat(meters.get("shardtenancy.transaction")
			.tags("shard", "shard-1", "outcome", "rejected", "reason", "STALE")
			.timer()
			.count()).isEqualTo(2);
		assertThat(meters.get("shardtenancy.transaction").tags("outcome", "rejected").timer().getId().getTag("error"))
			.as("Micrometer's handler tags the error type").isNotEqualTo("none");
	}

	@Test
	@DisplayName("with tenantLowCardinality the tenant becomes a low-cardinality key value, and so a meter tag")
	void tenantAsLowCardinality() throws Exception {
		TestObservationRegistry registry = TestObservationRegistry.create();
		start(registry, true);
		this.tenancy.admin().create("few", "shard-1");

		TenantContext.callAs("few", () -> retry().call(this::selectOne));

		assertThat(registry).hasObservationWithNameEqualTo("shardtenancy.transaction")
			.that()
			.hasLowCardinalityKeyValue("tenant", "few")
			.doesNotHaveHighCardinalityKeyValueWithKey("tenant");
	}

	@Test
	@DisplayName("with a no-op registry nothing is observed and the work runs as usual")
	void noopRegistry() throws Exception {
		start(ObservationRegistry.NOOP, false);
		this.tenancy.admin().create("acme", "shard-1");

		assertThat(TenantContext.callAs("acme", () -> retry().call(this::selectOne))).isEqualTo(1);
		assertThat(ObservationRegistry.NOOP.getCurrentObservation()).isNull();
		assertThat(Observation.NOOP.isNoop()).isTrue();
	}

}
