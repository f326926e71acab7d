package io.github.shardtenancy.boot;

import java.lang.reflect.Method;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicBoolean;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.github.shardtenancy.MoveSettings;
import io.github.shardtenancy.MoveStep;
import io.github.shardtenancy.ShardTenancy;
import io.github.shardtenancy.ShardTopology;
import io.github.shardtenancy.TenantAdmin;
import io.github.shardtenancy.TenantContext;
import io.github.shardtenancy.TenantMover;
import io.github.shardtenancy.boot.testapp.Note;
import io.github.shardtenancy.boot.testapp.NoteRepository;
import io.github.shardtenancy.boot.testapp.TestApplication;
import io.github.shardtenancy.spi.ShardPoolFactory;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledForJreRange;
import org.junit.jupiter.api.condition.JRE;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.scheduling.annotation.EnableScheduling;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Where the tenancy's background work runs in a Boot application on H2: the periodic work (here the shard registry
 * sync, seen through the pool factory it calls for a shard another instance registered) on Boot's task scheduling,
 * moves on an executor from Boot's builder, virtual threads under {@code spring.threads.virtual.enabled=true}, and no
 * thread of the tenancy left running once the context is closed.
 */
@DisplayName("Background threads")
class BackgroundThreadsTests {

	/** The threads each kind of background work ran on. */
	static final Set<Thread> poolFactoryThreads = ConcurrentHashMap.newKeySet();

	static final Set<Thread> moveThreads = ConcurrentHashMap.newKeySet();

	private static String h2(String name) {
		return "jdbc:h2:mem:" + name + "-" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1;LOCK_TIMEOUT=10000";
	}

	/** The tenancy's platform threads alive before the test's context started (other tests' cached contexts). */
	private static Set<Thread> before = Set.of();

	private static Set<Thread> tenancyThreads() {
		Set<Thread> threads = ConcurrentHashMap.newKeySet();
		Thread.getAllStackTraces().keySet().stream().filter((thread) -> thread.getName().startsWith("shard-tenancy-"))
			.forEach(threads::add);
		return threads;
	}

	private static ConfigurableApplicationContext start(Class<?>[] sources, String... properties) {
		poolFactoryThreads.clear();
		moveThreads.clear();
		before = tenancyThreads();
		List<String> all = new ArrayList<>(List.of("shard-tenancy.directory.url=" + h2("bg-directory"),
				"shard-tenancy.shards.shard-1.url=" + h2("bg-shard-1"),
				"shard-tenancy.shards.shard-2.url=" + h2("bg-shard-2"),
				"shard-tenancy.liquibase.shard-changelogs=db/test-shard.xml",
				"shard-tenancy.lifecycle.registry-sync-interval=100ms", "shard-tenancy.retry.max-delay=20ms",
				"shard-tenancy.retry.max-attempts=50", "spring.main.web-application-type=none"));
		all.addAll(List.of(properties));
		return new SpringApplicationBuilder(sources).properties(all.toArray(String[]::new)).run();
	}

	@Test
	@DisplayName("by default: the registry sync on a shard-tenancy-scheduler thread, moves on shard-tenancy-move "
			+ "threads, none left after close")
	void platformThreads() throws Exception {
		try (ConfigurableApplicationContext context = start(sources())) {
			registerShardElsewhere(context);
			moveUnderWriters(context);

			assertThat(poolFactoryThreads).allSatisfy(
					(thread) -> assertThat(thread.getName()).startsWith("shard-tenancy-scheduler-"));
			assertThat(moveThreads).allSatisfy((thread) -> assertThat(thread.getName()).startsWith("shard-tenancy-move-"));
		}
		assertNoThreadLeft();
	}

	@Test
	@DisplayName("with @EnableScheduling the periodic work runs on the application's TaskScheduler")
	void applicationScheduler() throws Exception {
		try (ConfigurableApplicationContext context = start(sources(SchedulingOn.class))) {
			registerShardElsewhere(context);

			assertThat(poolFactoryThreads).allSatisfy(
					(thread) -> assertThat(thread.getName()).as("Boot's taskScheduler").startsWith("scheduling-"));
		}
		assertNoThreadLeft();
	}

	@Test
	@EnabledForJreRange(min = JRE.JAVA_21)
	@DisplayName("spring.threads.virtual.enabled=true: routes, retries and moves under writers lose nothing; the "
			+ "background work runs on virtual threads, none left after close")
	void virtualThreads() throws Exception {
		try (ConfigurableApplicationContext context = start(sources(), "spring.threads.virtual.enabled=true")) {
			registerShardElsewhere(context);
			moveUnderWriters(context);

			assertThat(poolFactoryThreads).allSatisfy((thread) -> assertThat(isVirtual(thread)).as(thread.toString())
				.isTrue());
			assertThat(moveThreads).allSatisfy((thread) -> {
				assertThat(isVirtual(thread)).as(thread.toString()).isTrue();
				assertThat(thread.getName()).startsWith("shard-tenancy-move-");
			});
		}
		assertNoThreadLeft();
	}

	@Test
	@EnabledForJreRange(min = JRE.JAVA_21)
	@DisplayName("spring.threads.virtual.enabled=true with @EnableScheduling: the periodic work on Boot's virtual-thread "
			+ "scheduler")
	void virtualApplicationScheduler() throws Exception {
		try (ConfigurableApplicationContext context = start(sources(SchedulingOn.class),
				"spring.threads.virtual.enabled=true")) {
			registerShardElsewhere(context);

			assertThat(poolFactoryThreads).allSatisfy((thread) -> assertThat(isVirtual(thread)).as(thread.toString())
				.isTrue());
		}
		assertNoThreadLeft();
	}

	private static Class<?>[] sources(Class<?>... more) {
		List<Class<?>> sources = new ArrayList<>(List.of(TestApplication.class, Recording.class));
		sources.addAll(List.of(more));
		return sources.toArray(Class<?>[]::new);
	}

	/**
	 * Records shard-3 in the directory's shard registry as another instance would, and waits until the registry sync
	 * connected to it (through the pool factory).
	 */
	private static void registerShardElsewhere(ConfigurableApplicationContext context) throws Exception {
		ShardTenancy tenancy = context.getBean(ShardTenancy.class);
		try (Connection c = tenancy.directoryDataSource().getConnection();
				PreparedStatement ps = c.prepareStatement("INSERT INTO shard_registry (region, state, jdbc_url, "
						+ "username, version, updated_at, updated_by, shard_id) VALUES (NULL, 'ACTIVE', ?, NULL, "
						+ "1000000, CURRENT_TIMESTAMP, 'other-instance', 'shard-3')")) {
			ps.setString(1, h2("bg-shard-3"));
			ps.executeUpdate();
		}
		await().atMost(Duration.ofSeconds(30))
			.untilAsserted(() -> assertThat(context.getBean(ShardTopology.class).shardIds()).contains("shard-3"));
		assertThat(poolFactoryThreads).isNotEmpty();
	}

	/**
	 * Moves a tenant online from shard-1 to shard-2 while four writers save notes through the Spring Data repository
	 * (retried automatically when the fence rejects them), and checks that every saved note is there, once.
	 */
	private static void moveUnderWriters(ConfigurableApplicationContext context) throws Exception {
		String tenant = "bg-" + UUID.randomUUID().toString().substring(0, 8);
		context.getBean(TenantAdmin.class).create(tenant, "shard-1");
		NoteRepository notes = context.getBean(NoteRepository.class);
		AtomicBoolean moving = new AtomicBoolean(true);
		Set<UUID> saved = ConcurrentHashMap.newKeySet();
		ExecutorService writers = Executors.newFixedThreadPool(4);
		List<Future<?>> done = new ArrayList<>();
		for (int w = 0; w < 4; w++) {
			int writer = w;
			done.add(writers.submit(() -> {
				for (int i = 0; moving.get() || i < 20; i++) {
					String title = "w" + writer + "-" + i;
					saved.add(TenantContext.callAs(tenant, () -> notes.save(new Note(title))).getId());
				}
				return null;
			}));
		}
		try {
			await().atMost(Duration.ofSeconds(30)).until(() -> saved.size() >= 40);
			TenantMover mover = context.getBean(TenantMover.class);
			String moveId = mover.move(tenant, "shard-2", context.getBean(MoveSettings.class));
			await().atMost(Duration.ofSeconds(60)).until(() -> mover.status(moveId).isFinished());
			assertThat(mover.status(moveId).step()).isEqualTo(MoveStep.DONE);
		}
		finally {
			moving.set(false);
		}
		for (Future<?> writer : done) {
			writer.get();
		}
		writers.shutdown();
		assertThat(context.getBean(TenantAdmin.class).find(tenant).orElseThrow().shardId()).isEqualTo("shard-2");
		List<UUID> stored = TenantContext.callAs(tenant, notes::findAll).stream().map(Note::getId).toList();
		assertThat(stored).doesNotHaveDuplicates().containsExactlyInAnyOrderElementsOf(saved);
		assertThat(moveThreads).isNotEmpty();
	}

	private static void assertNoThreadLeft() {
		await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
			assertThat(poolFactoryThreads).noneMatch(Thread::isAlive);
			assertThat(moveThreads).noneMatch(Thread::isAlive);
			Set<Thread> started = tenancyThreads();
			started.removeAll(before);
			assertThat(started).as("threads of the tenancy started by this test's context").isEmpty();
		});
	}

	/** {@code Thread.isVirtual()}, by reflection: the build targets Java 17. */
	private static boolean isVirtual(Thread thread) throws Exception {
		Method isVirtual = Thread.class.getMethod("isVirtual");
		return (boolean) isVirtual.invoke(thread);
	}

	/** Records the threads of the registry sync (through the pool factory) and of moves (through the move hook). */
	@Configuration(proxyBeanMethods = false)
	static class Recording {

		@Bean
		ShardPoolFactory recordingPoolFactory() {
			return (shard) -> {
				poolFactoryThreads.add(Thread.currentThread());
				HikariConfig config = new HikariConfig();
				config.setJdbcUrl(shard.jdbcUrl());
				config.setPoolName("shard-" + shard.shardId());
				return new HikariDataSource(config);
			};
		}

		@Bean
		ShardTenancyBuilderCustomizer recordingMoveHook() {
			return (builder) -> builder.moveHook((moveId, step) -> moveThreads.add(Thread.currentThread()));
		}

	}

	@Configuration(proxyBeanMethods = false)
	@EnableScheduling
	static class SchedulingOn {

	}

}
