package io.github.shardtenancy.boot;

import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import javax.sql.DataSource;

import io.github.shardtenancy.DirectoryEvent;
import io.github.shardtenancy.NestedDirectoryWriteException;
import io.github.shardtenancy.ShardTenancyConfigurationException;
import io.github.shardtenancy.ShardTenancy;
import io.github.shardtenancy.TenantAdmin;
import io.github.shardtenancy.TenantContext;
import io.github.shardtenancy.TenantSeedException;
import io.github.shardtenancy.TenantState;
import io.github.shardtenancy.TenantSwitchedException;
import io.github.shardtenancy.spi.TenantSeeder;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ApplicationContext;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.init.ScriptException;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * Seeding a new tenant's data on its shard through {@code TenantAdmin.create} in a Boot context on H2: the scripts of
 * {@code shard-tenancy.seed.locations} and {@link TenantSeeder} beans, a failing seed, its retry, a move (never seeds
 * again), and the Spring Boot settings the routing {@code DataSource} would silently defeat.
 */
@DisplayName("Tenant seeding and ignored Spring Boot settings")
class TenantSeedTests {

	private static String h2(String name) {
		return "jdbc:h2:mem:" + name + "-" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1;LOCK_TIMEOUT=10000";
	}

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(ShardTenancyAutoConfiguration.class))
		.withPropertyValues("shard-tenancy.directory.url=" + h2("directory"),
				"shard-tenancy.shards.shard-1.url=" + h2("shard-1"), "shard-tenancy.shards.shard-2.url=" + h2("shard-2"),
				"shard-tenancy.sync.interval=1h", "shard-tenancy.liquibase.shard-changelogs=classpath:db/test-shard.xml",
				"shard-tenancy.tenant-tables=note:tenant_id", "shard-tenancy.move.clean-delay=0s");

	private static List<String> titles(ApplicationContext context, String tenant) throws Exception {
		JdbcTemplate jdbc = new JdbcTemplate(context.getBean(DataSource.class));
		return TenantContext.callAs(tenant,
				() -> jdbc.queryForList("SELECT title FROM note WHERE tenant_id = ? ORDER BY title", String.class,
						tenant));
	}

	private static List<DirectoryEvent> seeded(TenantAdmin admin, String tenant) {
		return admin.events(0)
			.stream()
			.filter((event) -> event.kind().equals("TENANT_SEEDED") && event.subject().equals(tenant))
			.toList();
	}

	@Test
	@DisplayName("The seed scripts run in file order on the new tenant's own shard, with ${tenant} and ${shard} replaced, and the seed is recorded")
	void seedScriptsLoadTheNewTenantsDataOnItsShard() {
		this.runner.withPropertyValues("shard-tenancy.seed.locations=classpath:db/seed/notes/*.sql").run((context) -> {
			assertThat(context).hasNotFailed();
			TenantAdmin admin = context.getBean(TenantAdmin.class);
			admin.create("acme", "shard-1");
			admin.create("globex", "shard-2");
			assertThat(titles(context, "acme")).containsExactly("Created on shard-1", "Welcome");
			assertThat(titles(context, "globex")).containsExactly("Created on shard-2", "Welcome");
			assertThat(seeded(admin, "acme")).singleElement().extracting(DirectoryEvent::to).isEqualTo("shard-1");
			assertThat(admin.seed("acme")).as("seeded already: left alone").isFalse();
			assertThat(titles(context, "acme")).hasSize(2);
		});
	}

	@Test
	@DisplayName("${id:name} in seed scripts becomes a shard-safe id, the same for one name across the scripts of one seed, different for every seed, so two tenants' seeds share a shard")
	void seedScriptsGetShardSafeIds() {
		this.runner
			.withPropertyValues("shard-tenancy.seed.locations=classpath:db/seed/ids/*.sql",
					"shard-tenancy.liquibase.shard-changelogs=classpath:db/seed-ids-shard.xml",
					"shard-tenancy.tenant-tables=folder:tenant_id,item:tenant_id")
			.run((context) -> {
				assertThat(context).hasNotFailed();
				TenantAdmin admin = context.getBean(TenantAdmin.class);
				admin.create("acme", "shard-1");
				admin.create("globex", "shard-1");
				JdbcTemplate jdbc = new JdbcTemplate(context.getBean(DataSource.class));
				for (String tenant : List.of("acme", "globex")) {
					List<String> inbox = TenantContext.callAs(tenant, () -> jdbc.queryForList(
							"SELECT i.title FROM item i JOIN folder f ON f.id = i.folder_id "
									+ "WHERE i.tenant_id = ? AND f.name = 'Inbox' ORDER BY i.title",
							String.class, tenant));
					assertThat(inbox).as("the items reference the folder ids of the first script")
						.containsExactly("First", "Second");
				}
				String idsOf = "SELECT id FROM folder WHERE tenant_id = ? UNION ALL SELECT id FROM item WHERE tenant_id = ?";
				List<Long> ids = TenantContext.callAs("acme",
						() -> jdbc.queryForList(idsOf, Long.class, "acme", "acme"));
				List<Long> otherIds = TenantContext.callAs("globex",
						() -> jdbc.queryForList(idsOf, Long.class, "globex", "globex"));
				assertThat(ids).hasSize(5)
					.doesNotHaveDuplicates()
					.allSatisfy((id) -> assertThat(id).isGreaterThan(1L << 22));
				assertThat(otherIds).hasSize(5).doesNotContainAnyElementsOf(ids);
			});
	}

	@Test
	@DisplayName("${intId:table:name} in seed scripts is an Integer id of the table's counter, each table numbered 1, 2, 3... in row order; ${intId:name} of the default counter, apart from ${id:name}")
	void seedScriptsGetIntegerIds() {
		this.runner
			.withPropertyValues("shard-tenancy.seed.locations=classpath:db/seed/int-ids/*.sql",
					"shard-tenancy.liquibase.shard-changelogs=classpath:db/seed-int-ids-shard.xml",
					"shard-tenancy.tenant-tables=label:tenant_id,tag:tenant_id", "shard-tenancy.ids.integer-block-size=3")
			.run((context) -> {
				assertThat(context).hasNotFailed();
				TenantAdmin admin = context.getBean(TenantAdmin.class);
				admin.create("acme", "shard-1");
				admin.create("globex", "shard-1");
				JdbcTemplate jdbc = new JdbcTemplate(context.getBean(DataSource.class));
				Map<String, List<Integer>> labels = new HashMap<>();
				Map<String, List<Integer>> tags = new HashMap<>();
				List<Integer> defaults = new ArrayList<>();
				for (String tenant : List.of("acme", "globex")) {
					List<String> urgent = TenantContext.callAs(tenant, () -> jdbc.queryForList(
							"SELECT t.title FROM tag t JOIN label l ON l.id = t.label_id "
									+ "WHERE t.tenant_id = ? AND l.name = 'Urgent' ORDER BY t.title",
							String.class, tenant));
					assertThat(urgent).as("the tags reference the label's Integer id").containsExactly("Call back", "Pay");
					List<Long> longRefs = TenantContext.callAs(tenant, () -> jdbc.queryForList(
							"SELECT DISTINCT long_ref FROM label WHERE tenant_id = ?", Long.class, tenant));
					assertThat(longRefs).as("${id:urgent} is one Long id, not the Integer one").singleElement()
						.satisfies((id) -> assertThat(id).isGreaterThan(Integer.MAX_VALUE));
					labels.put(tenant, TenantContext.callAs(tenant, () -> jdbc.queryForList(
							"SELECT id FROM label WHERE tenant_id = ? ORDER BY name DESC", Integer.class, tenant)));
					tags.put(tenant, TenantContext.callAs(tenant, () -> jdbc.queryForList(
							"SELECT id FROM tag WHERE tenant_id = ? ORDER BY title", Integer.class, tenant)));
					defaults.addAll(TenantContext.callAs(tenant, () -> jdbc.queryForList(
							"SELECT DISTINCT int_ref FROM label WHERE tenant_id = ?", Integer.class, tenant)));
				}
				assertThat(labels.get("acme")).as("the first tenant's labels, Urgent then Later: 1, 2 as in row order")
					.containsExactly(1, 2);
				assertThat(labels.get("globex")).as("the next tenant's: 3, then 4 from the next block of 3")
					.containsExactly(3, 4);
				assertThat(tags.get("acme")).as("the tags' own counter, also from 1 (TAG and tag are one counter)")
					.containsExactly(1, 2);
				assertThat(tags.get("globex")).containsExactly(3, 4);
				assertThat(defaults).as("${intId:urgent}: one id per seed from the default counter").containsExactly(1, 2);
				JdbcTemplate directory = new JdbcTemplate(context.getBean(ShardTenancy.class).directoryDataSource());
				assertThat(directory.queryForMap("SELECT "
						+ "MAX(CASE WHEN counter_name = 'label' THEN next_id END) AS label, "
						+ "MAX(CASE WHEN counter_name = 'tag' THEN next_id END) AS tag, "
						+ "MAX(CASE WHEN counter_name = 'integer' THEN next_id END) AS dflt, COUNT(*) AS counters "
						+ "FROM shard_id_block"))
					.as("two blocks of 3 leased per table, one of the default counter; no other counter")
					.containsEntry("LABEL", 7L).containsEntry("TAG", 7L).containsEntry("DFLT", 4L)
					.containsEntry("COUNTERS", 3L);
			});
	}

	@Test
	@DisplayName("A failing seed script rolls the whole seed back; the tenant exists, unseeded, and retrying with the same script fails the same way")
	void aFailingSeedScriptRollsTheSeedBack() {
		this.runner.withPropertyValues("shard-tenancy.seed.locations=classpath:db/seed/broken/*.sql").run((context) -> {
			assertThat(context).hasNotFailed();
			TenantAdmin admin = context.getBean(TenantAdmin.class);
			assertThatThrownBy(() -> admin.create("acme", "shard-1")).isInstanceOfSatisfying(TenantSeedException.class,
					(ex) -> {
						assertThat(ex.rolledBack()).isTrue();
						assertThat(ex.tenantId()).isEqualTo("acme");
						assertThat(ex.shardId()).isEqualTo("shard-1");
						assertThat(ex.directoryVersion()).isPositive();
						assertThat(ex).hasMessageContaining("02-missing-table.sql")
							.hasMessageContaining("TenantAdmin.seed(\"acme\")");
						assertThat(ex).hasCauseInstanceOf(ScriptException.class);
					});
			assertThat(admin.find("acme")).get().extracting((entry) -> entry.state()).isEqualTo(TenantState.ACTIVE);
			assertThat(titles(context, "acme")).as("the first script's row is rolled back with the second").isEmpty();
			assertThat(seeded(admin, "acme")).isEmpty();
			assertThatThrownBy(() -> admin.seed("acme")).isInstanceOf(TenantSeedException.class);
			assertThat(titles(context, "acme")).isEmpty();
		});
	}

	@Test
	@DisplayName("A seeder that writes the directory (creates another tenant) is refused at once instead of waiting for its own lock; the seed is rolled back and nothing else is created")
	void aSeederWritingTheDirectoryIsRefused() {
		AtomicReference<TenantAdmin> admins = new AtomicReference<>();
		this.runner.withBean("creatingSeeder", TenantSeeder.class, () -> (tenant, connection) -> {
			try (var insert = connection.prepareStatement("INSERT INTO note (id, tenant_id, title) VALUES (?, ?, ?)")) {
				insert.setObject(1, UUID.randomUUID());
				insert.setString(2, tenant.tenantId());
				insert.setString(3, "welcome");
				insert.executeUpdate();
			}
			admins.get().create(tenant.tenantId() + "-sibling");
		}).run((context) -> {
			assertThat(context).hasNotFailed();
			TenantAdmin admin = context.getBean(TenantAdmin.class);
			admins.set(admin);
			assertThatThrownBy(() -> admin.create("acme", "shard-1")).isInstanceOfSatisfying(TenantSeedException.class,
					(ex) -> {
						assertThat(ex.rolledBack()).isTrue();
						assertThat(ex).hasRootCauseInstanceOf(NestedDirectoryWriteException.class);
						assertThat(ex).rootCause().hasMessageContaining("acme-sibling").hasMessageContaining("TenantSeeder");
					});
			assertThat(admin.find("acme-sibling")).isEmpty();
			assertThat(titles(context, "acme")).as("the seed's own row is rolled back").isEmpty();
			assertThat(seeded(admin, "acme")).isEmpty();
		});
	}

	@Test
	@DisplayName("A failed seed is retried with TenantAdmin.seed once the cause is fixed, exactly once; a moved tenant is never seeded again")
	void aFailedSeedIsRetriedOnceAndAMoveNeverSeeds() {
		AtomicBoolean failing = new AtomicBoolean(true);
		TenantSeeder flaky = (tenant, connection) -> {
			if (failing.get()) {
				throw new SQLException("reference service down");
			}
		};
		this.runner.withPropertyValues("shard-tenancy.seed.locations=classpath:db/seed/notes/01-welcome.sql")
			.withBean("flakySeeder", TenantSeeder.class, () -> flaky)
			.run((context) -> {
				assertThat(context).hasNotFailed();
				TenantAdmin admin = context.getBean(TenantAdmin.class);
				assertThatThrownBy(() -> admin.create("acme", "shard-1"))
					.isInstanceOfSatisfying(TenantSeedException.class, (ex) -> assertThat(ex.rolledBack()).isTrue())
					.hasMessageContaining("reference service down");
				assertThat(titles(context, "acme")).as("the script's row is rolled back with the seeder").isEmpty();

				failing.set(false);
				assertThat(admin.seed("acme")).isTrue();
				assertThat(admin.seed("acme")).as("recorded: not again").isFalse();
				assertThat(titles(context, "acme")).containsExactly("Welcome");

				admin.move("acme", "shard-2");
				assertThat(admin.find("acme")).get().extracting((entry) -> entry.shardId()).isEqualTo("shard-2");
				assertThat(titles(context, "acme")).as("copied by the move, not seeded again").containsExactly("Welcome");
				assertThat(admin.seed("acme")).isFalse();
				assertThat(titles(context, "acme")).containsExactly("Welcome");
				assertThat(seeded(admin, "acme")).hasSize(1);
			});
	}

	@Test
	@DisplayName("Two TenantAdmin.seed calls at once for a tenant whose seed failed: the seed runs once, the other call finds it recorded")
	void concurrentRetriesSeedOnce() {
		AtomicBoolean failing = new AtomicBoolean(true);
		AtomicInteger runs = new AtomicInteger();
		CountDownLatch release = new CountDownLatch(1);
		TenantSeeder seeder = (tenant, connection) -> {
			if (failing.get()) {
				throw new SQLException("reference service down");
			}
			runs.incrementAndGet();
			try {
				release.await();
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				throw new SQLException(ex);
			}
		};
		this.runner.withBean("blockingSeeder", TenantSeeder.class, () -> seeder).run((context) -> {
			TenantAdmin admin = context.getBean(TenantAdmin.class);
			assertThatThrownBy(() -> admin.create("acme", "shard-1")).isInstanceOf(TenantSeedException.class);
			failing.set(false);
			ExecutorService threads = Executors.newFixedThreadPool(2);
			try {
				Future<Boolean> first = threads.submit(() -> admin.seed("acme"));
				await().atMost(Duration.ofSeconds(10)).until(() -> runs.get() == 1);
				Thread[] second = new Thread[1];
				Future<Boolean> other = threads.submit(() -> {
					second[0] = Thread.currentThread();
					return admin.seed("acme");
				});
				await().atMost(Duration.ofSeconds(10))
					.until(() -> second[0] != null && second[0].getState() != Thread.State.RUNNABLE);
				release.countDown();
				assertThat(List.of(first.get(10, TimeUnit.SECONDS), other.get(10, TimeUnit.SECONDS)))
					.containsExactlyInAnyOrder(true, false);
				assertThat(runs).hasValue(1);
				assertThat(seeded(admin, "acme")).hasSize(1);
			}
			finally {
				release.countDown();
				threads.shutdownNow();
			}
		});
	}

	@Test
	@DisplayName("Creating a tenant while another tenant's connection is held on the thread: created, seed refused without running, retried outside")
	void createInsideAnotherTenantsWork() {
		this.runner.withPropertyValues("shard-tenancy.seed.locations=classpath:db/seed/notes/01-welcome.sql")
			.run((context) -> {
				TenantAdmin admin = context.getBean(TenantAdmin.class);
				admin.create("other", "shard-1");
				DataSource routing = context.getBean(DataSource.class);
				TenantContext.callAs("other", () -> {
					try (java.sql.Connection held = routing.getConnection()) {
						assertThatThrownBy(() -> admin.create("acme", "shard-2"))
							.isInstanceOfSatisfying(TenantSeedException.class,
									(ex) -> assertThat(ex.rolledBack()).isTrue())
							.hasCauseInstanceOf(TenantSwitchedException.class);
					}
					return null;
				});
				assertThat(titles(context, "acme")).isEmpty();
				assertThat(admin.seed("acme")).isTrue();
				assertThat(titles(context, "acme")).containsExactly("Welcome");
				assertThat(titles(context, "other")).containsExactly("Welcome");
			});
	}

	@Test
	@DisplayName("Without seed settings nothing is seeded or recorded")
	void noSeedersNoSeed() {
		this.runner.run((context) -> {
			TenantAdmin admin = context.getBean(TenantAdmin.class);
			admin.create("acme", "shard-1");
			assertThat(titles(context, "acme")).isEmpty();
			assertThat(admin.seed("acme")).isFalse();
			assertThat(seeded(admin, "acme")).isEmpty();
		});
	}

	@Test
	@DisplayName("A seed location that matches no script fails the start, unless marked optional:")
	void aSeedLocationMatchingNothingFailsTheStart() {
		this.runner.withPropertyValues("shard-tenancy.seed.locations=classpath:db/seed/none/*.sql").run((context) -> {
			assertThat(context).hasFailed();
			assertThat(context.getStartupFailure()).rootCause()
				.isInstanceOfSatisfying(ShardTenancyConfigurationException.class,
						(ex) -> assertThat(ex.setting()).isEqualTo("shard-tenancy.seed.locations"))
				.hasMessageContaining("classpath:db/seed/none/*.sql");
		});
		this.runner.withPropertyValues("shard-tenancy.seed.locations=optional:classpath:db/seed/none/*.sql")
			.run((context) -> assertThat(context).hasNotFailed());
	}

	@ParameterizedTest(name = "{0}={1} fails the start")
	@CsvSource({ "spring.datasource.url, jdbc:h2:mem:app, shard-tenancy.shards.<shard-id>.url",
			"spring.sql.init.mode, always, shard-tenancy.seed.locations",
			"spring.jpa.hibernate.ddl-auto, update, shard-tenancy.liquibase.shard-changelogs",
			"spring.jpa.properties.hibernate.hbm2ddl.auto, create-drop, shard-tenancy.liquibase.shard-changelogs" })
	@DisplayName("A Spring Boot setting the routing DataSource would defeat fails the start, naming the value and the remedy")
	void aDefeatedSpringBootSettingFailsTheStart(String property, String value, String remedy) {
		this.runner.withPropertyValues(property + "=" + value).run((context) -> {
			assertThat(context).hasFailed();
			ShardTenancyConfigurationException ex = configurationFailure(context.getStartupFailure());
			assertThat(ex.setting()).isEqualTo(property);
			assertThat(ex).hasMessageContaining("'" + value + "'").hasMessageContaining(remedy);
			FailureAnalysis analysis = new ShardTenancyFailureAnalyzer().analyze(context.getStartupFailure());
			assertThat(analysis.getDescription()).contains(property);
			assertThat(analysis.getAction()).contains("Remove " + property);
		});
	}

	@Test
	@DisplayName("spring.sql.init.mode=never and ddl-auto none or validate are left alone")
	void sqlInitNeverStarts() {
		this.runner.withPropertyValues("spring.sql.init.mode=never").run((context) -> assertThat(context).hasNotFailed());
		this.runner.withPropertyValues("spring.jpa.hibernate.ddl-auto=validate")
			.run((context) -> assertThat(context).hasNotFailed());
	}

	@Test
	@DisplayName("With shard-tenancy.enabled=false or a DataSource of the application's, the Spring Boot settings are the application's")
	void theChecksBackOffWithTheRoutingDataSource() {
		this.runner.withPropertyValues("shard-tenancy.enabled=false", "spring.datasource.url=jdbc:h2:mem:app",
				"spring.sql.init.mode=always")
			.run((context) -> assertThat(context).hasNotFailed());
		this.runner.withPropertyValues("spring.datasource.url=jdbc:h2:mem:app", "spring.sql.init.mode=always")
			.withBean(DataSource.class,
					() -> new org.springframework.jdbc.datasource.DriverManagerDataSource(h2("application")))
			.run((context) -> assertThat(context).hasNotFailed());
	}

	private static ShardTenancyConfigurationException configurationFailure(Throwable failure) {
		Throwable t = failure;
		while (t != null && !(t instanceof ShardTenancyConfigurationException)) {
			t = t.getCause();
		}
		assertThat(t).as("a ShardTenancyConfigurationException in the causes of %s", failure).isNotNull();
		return (ShardTenancyConfigurationException) t;
	}

}
