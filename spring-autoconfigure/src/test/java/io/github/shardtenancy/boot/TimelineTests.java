package io.github.shardtenancy.boot;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.ToLongFunction;

import io.github.shardtenancy.MoveResult;
import io.github.shardtenancy.MoveSettings;
import io.github.shardtenancy.MoveStatus;
import io.github.shardtenancy.MoveStep;
import io.github.shardtenancy.TenantAdmin;
import io.github.shardtenancy.TenantContext;
import io.github.shardtenancy.TenantMover;
import io.github.shardtenancy.boot.actuate.Timeline;
import io.github.shardtenancy.boot.actuate.TimelineRecorder;
import io.github.shardtenancy.boot.opsapp.AuditService;
import io.github.shardtenancy.boot.opsapp.OpsApplication;
import io.github.shardtenancy.spi.MoveHook;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.test.web.servlet.MockMvc;
import org.springframework.test.web.servlet.setup.MockMvcBuilders;
import org.springframework.web.context.WebApplicationContext;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.get;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.jsonPath;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.status;

/**
 * The endpoint's timeline recorded from real transactions (Boot, Spring Data JPA, the library's retry, two H2 shards)
 * written through an online move: the writers run from the move's PLANNED step to its flip, and the move waits in its
 * freeze until a writer was rejected, so that the tenant's series holds every commit, the rejections and their
 * retries, and the move's one freeze window.
 */
@SpringBootTest(classes = { OpsApplication.class, TimelineTests.Pacing.class }, properties = {
		"shard-tenancy.web.access.policy=none",
		"shard-tenancy.directory.url=jdbc:h2:mem:timeline-directory;DB_CLOSE_DELAY=-1;LOCK_TIMEOUT=10000",
		"shard-tenancy.shards.shard-1.url=jdbc:h2:mem:timeline-shard-1;DB_CLOSE_DELAY=-1;LOCK_TIMEOUT=10000",
		"shard-tenancy.shards.shard-2.url=jdbc:h2:mem:timeline-shard-2;DB_CLOSE_DELAY=-1;LOCK_TIMEOUT=10000",
		"shard-tenancy.liquibase.shard-changelogs=db/ops-shard.xml", "shard-tenancy.sync.interval=1h",
		"shard-tenancy.retry.max-delay=20ms", "shard-tenancy.retry.freeze-wait=60s",
		"shard-tenancy.actor=timeline-tests", "shard-tenancy.timeline.window=2m",
		"management.endpoints.web.exposure.include=health,shardtenancy",
		"management.endpoint.shardtenancy.show-values=always" })
@DisplayName("the endpoint's timeline")
class TimelineTests {

	static final String TENANT = "timeline-1";

	static final int WRITERS = 3;

	@Autowired
	TenantAdmin admin;

	@Autowired
	TenantMover mover;

	@Autowired
	AuditService audit;

	@Autowired
	TimelineRecorder recorder;

	@Autowired
	Pacing pacing;

	@Autowired
	WebApplicationContext context;

	/** The move hook: runs what the test gives it after the PLANNED, FROZEN and FLIPPED steps. */
	@TestConfiguration(proxyBeanMethods = false)
	static class Pacing implements MoveHook {

		volatile Runnable planned = () -> {
		};

		volatile Runnable frozen = () -> {
		};

		volatile Runnable flipped = () -> {
		};

		@Bean
		ShardTenancyBuilderCustomizer timelinePacing() {
			return (builder) -> builder.moveHook(this);
		}

		@Override
		public void stepRecorded(String moveId, MoveStep step) {
			switch (step) {
				case PLANNED -> this.planned.run();
				case FROZEN -> this.frozen.run();
				case FLIPPED -> this.flipped.run();
				default -> {
				}
			}
		}

	}

	@Test
	@DisplayName("a move through writes: the tenant's commits, its rejections and retries, and one freeze window "
			+ "from freeze to flip, also over HTTP")
	void moveThroughWrites() throws Exception {
		this.admin.create(TENANT, "shard-1");
		AtomicBoolean stop = new AtomicBoolean();
		AtomicLong committed = new AtomicLong();
		AtomicLong failed = new AtomicLong();
		List<Thread> writers = new ArrayList<>();
		this.pacing.planned = () -> {
			for (int i = 0; i < WRITERS; i++) {
				Thread writer = new Thread(() -> TenantContext.runAs(TENANT, () -> {
					while (!stop.get()) {
						try {
							this.audit.record("timeline");
							committed.incrementAndGet();
						}
						catch (RuntimeException ex) {
							failed.incrementAndGet();
						}
					}
				}), "timeline-writer-" + i);
				writers.add(writer);
				writer.start();
			}
			await("the writers commit").atMost(Duration.ofSeconds(30)).until(() -> committed.get() > 0);
		};
		this.pacing.frozen = () -> await("a writer is rejected by the freeze").atMost(Duration.ofSeconds(30))
			.until(() -> tenantSum(this.recorder.timeline(120), Timeline.Second::fenceRejectionsPerSecond) > 0);
		this.pacing.flipped = () -> {
			stop.set(true);
			for (Thread writer : writers) {
				try {
					writer.join(30_000);
				}
				catch (InterruptedException ex) {
					Thread.currentThread().interrupt();
				}
			}
		};

		MoveResult result = this.mover.moveAndWait(TENANT, "shard-2", MoveSettings.defaults().withCleanDelay(Duration.ZERO));
		assertThat(result.step()).isEqualTo(MoveStep.DONE);
		assertThat(writers).allMatch((writer) -> !writer.isAlive());
		MoveStatus status = this.mover.status(result.moveId());

		Timeline timeline = this.recorder.timeline(120);
		assertThat(timeline.total()).hasSize(120);
		assertThat(timeline.toEpochSecond() - timeline.fromEpochSecond()).isEqualTo(119);
		Timeline.TenantSeries series = timeline.tenants()
			.stream()
			.filter((t) -> t.tenant().equals(TENANT))
			.findFirst()
			.orElseThrow();
		assertThat(series.moveId()).isEqualTo(result.moveId());
		assertThat(series.step()).isEqualTo("DONE");
		assertThat(series.sourceShard()).isEqualTo("shard-1");
		assertThat(series.targetShard()).isEqualTo("shard-2");
		assertThat(series.seconds()).extracting(Timeline.Second::epochSecond)
			.isEqualTo(timeline.total().stream().map(Timeline.Second::epochSecond).toList());
		assertThat(failed.get()).as("orders that failed").isZero();
		assertThat(tenantSum(timeline, Timeline.Second::committedPerSecond))
			.as("the tenant's commits, every one made while its move ran")
			.isEqualTo(committed.get());
		long rejections = tenantSum(timeline, Timeline.Second::fenceRejectionsPerSecond);
		assertThat(rejections).as("the tenant's fence rejections").isPositive();
		assertThat(tenantSum(timeline, Timeline.Second::retriesPerSecond))
			.as("the tenant's retries: every rejection was retried, since no order failed")
			.isEqualTo(rejections);
		assertThat(sum(timeline.total(), Timeline.Second::committedPerSecond)).as("every commit")
			.isGreaterThanOrEqualTo(committed.get());
		assertThat(sum(timeline.total(), Timeline.Second::fenceRejectionsPerSecond)).as("every rejection")
			.isGreaterThanOrEqualTo(rejections);

		assertThat(timeline.freezes()).singleElement().satisfies((freeze) -> {
			assertThat(freeze.tenant()).isEqualTo(TENANT);
			assertThat(freeze.moveId()).isEqualTo(result.moveId());
			assertThat(freeze.endedBy()).isEqualTo("FLIPPED");
			assertThat(freeze.frozenAtEpochMilli()).isLessThan(freeze.endedAtEpochMilli());
			assertThat(freeze.frozenAtEpochMilli()).isEqualTo(status.frozenAt().toEpochMilli());
			assertThat(freeze.endedAtEpochMilli()).isEqualTo(status.flippedAt().toEpochMilli());
		});

		MockMvc mvc = MockMvcBuilders.webAppContextSetup(this.context).build();
		mvc.perform(get("/actuator/shardtenancy/timeline/60"))
			.andExpect(status().isOk())
			.andExpect(jsonPath("$.windowSeconds").value(120))
			.andExpect(jsonPath("$.total.length()").value(60))
			.andExpect(jsonPath("$.total[0].epochSecond").isNumber())
			.andExpect(jsonPath("$.total[0].committedPerSecond").isNumber())
			.andExpect(jsonPath("$.tenants[0].tenant").value(TENANT))
			.andExpect(jsonPath("$.tenants[0].seconds.length()").value(60))
			.andExpect(jsonPath("$.freezes[0].tenant").value(TENANT))
			.andExpect(jsonPath("$.freezes[0].endedBy").value("FLIPPED"))
			.andExpect(jsonPath("$.freezes[0].frozenAtEpochMilli").value(status.frozenAt().toEpochMilli()));
		mvc.perform(get("/actuator/shardtenancy/timeline/0")).andExpect(status().isBadRequest());
		mvc.perform(get("/actuator/shardtenancy/timeline/121")).andExpect(status().isBadRequest());
		mvc.perform(get("/actuator/shardtenancy/other/60")).andExpect(status().isBadRequest());
		mvc.perform(get("/actuator/shardtenancy/" + TENANT))
			.andExpect(status().isOk())
			.andExpect(jsonPath("$.owner").value("shard-2"));
	}

	private static long tenantSum(Timeline timeline, ToLongFunction<Timeline.Second> count) {
		return timeline.tenants()
			.stream()
			.filter((t) -> t.tenant().equals(TENANT))
			.findFirst()
			.map((t) -> sum(t.seconds(), count))
			.orElse(0L);
	}

	private static long sum(List<Timeline.Second> seconds, ToLongFunction<Timeline.Second> count) {
		return seconds.stream().mapToLong(count).sum();
	}

}
