package io.github.shardtenancy;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import javax.sql.DataSource;

import com.zaxxer.hikari.HikariConfig;
import io.github.shardtenancy.internal.Internals;
import io.github.shardtenancy.liquibase.ShardTenancyMigrations;
import io.github.shardtenancy.testing.Ticket;
import org.hibernate.SessionFactory;
import org.hibernate.cfg.Configuration;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link ShardSafeId} on fenced H2 shards, through plain Hibernate on {@link ShardTenancy#builder()}: two application
 * instances (two tenancies on the same directory and shards) insert at once, each tenant on its own shard, and a
 * tenant is then moved next to the other one's rows: no id is used twice, and the move copies every row.
 */
@DisplayName("@ShardSafeId: two instances insert on two shards at once, then a move brings the rows together")
class ShardSafeIdTest {

	static final String CHANGELOG = "db/ids-test/tickets.xml";

	static final List<TenantTable> TABLES = List.of(new TenantTable("ticket", "tenant_id"));

	private final String name = "ids-" + UUID.randomUUID().toString().substring(0, 8);

	private HikariConfig pool(String database) {
		HikariConfig config = new HikariConfig();
		config.setJdbcUrl("jdbc:h2:mem:" + this.name + "-" + database + ";DB_CLOSE_DELAY=-1;LOCK_TIMEOUT=10000");
		config.setMaximumPoolSize(4);
		return config;
	}

	private ShardTenancy instance(String actor) {
		return ShardTenancy.builder()
			.directory(pool("directory"))
			.shard("shard-1", pool("shard-1"))
			.shard("shard-2", pool("shard-2"))
			.tenantTables(TABLES)
			.actor(actor)
			.build();
	}

	static SessionFactory sessionFactory(ShardTenancy tenancy, String dialect) {
		Configuration configuration = new Configuration().addAnnotatedClass(Ticket.class);
		configuration.getProperties().putAll(tenancy.hibernateSettings());
		configuration.setProperty("hibernate.dialect", dialect);
		configuration.setProperty("hibernate.hbm2ddl.auto", "none");
		return configuration.buildSessionFactory();
	}

	@Test
	@DisplayName("concurrent inserts by two instances on two shards, then an online move: every id distinct, all rows on the target")
	void twoInstancesThenMove() throws Exception {
		try (ShardTenancy first = instance("first@test"); ShardTenancy second = instance("second@test")) {
			ShardTenancyMigrations.migrateDirectory(first.directoryDataSource());
			for (String shardId : first.topology().shardIds()) {
				ShardTenancyMigrations.migrateShard(first.topology().dataSource(shardId), shardId, List.of(CHANGELOG));
			}
			first.start();
			second.start();
			first.admin().create("acme", "shard-1");
			first.admin().create("globex", "shard-2");
			try (SessionFactory firstFactory = sessionFactory(first, "org.hibernate.dialect.H2Dialect");
					SessionFactory secondFactory = sessionFactory(second, "org.hibernate.dialect.H2Dialect")) {
				// Building the session factories leased a generator id for each instance, a different one.
				int firstGenerator = Internals.wiring(first).ids().generatorId().orElseThrow();
				int secondGenerator = Internals.wiring(second).ids().generatorId().orElseThrow();
				assertThat(firstGenerator).isNotEqualTo(secondGenerator);

				List<Long> ids = insertConcurrently(List.of(firstFactory, secondFactory), List.of("acme", "globex"), 300);
				assertThat(new HashSet<>(ids)).as("ids handed out").hasSize(ids.size());
				assertThat(ids).extracting(IdSettings::generatorOf).containsOnly(firstGenerator, secondGenerator);

				MoveResult moved = first.mover().moveAndWait("acme", "shard-2", MoveSettings.defaults());

				assertThat(moved.step()).isEqualTo(MoveStep.DONE);
				DataSource target = first.topology().dataSource("shard-2");
				assertThat(rows(target)).as("rows on shard-2 after the move").hasSize(ids.size())
					.containsExactlyInAnyOrderElementsOf(ids);
				assertThat(rows(first.topology().dataSource("shard-1"))).as("source cleaned").isEmpty();
				// Writes after the move keep going, still unique.
				Long after = TenantContext.callAs("acme", () -> firstFactory.fromTransaction((session) -> {
					Ticket ticket = new Ticket("after the move");
					session.persist(ticket);
					return ticket.getId();
				}));
				assertThat(ids).doesNotContain(after);
				assertThat(rows(target)).hasSize(ids.size() + 1);
			}
		}
	}

	/**
	 * Every factory inserts for every tenant, on its own thread, so that both instances write both shards in the same
	 * milliseconds.
	 * @return the ids of every ticket written
	 */
	static List<Long> insertConcurrently(List<SessionFactory> factories, List<String> tenants, int perThread)
			throws Exception {
		ExecutorService threads = Executors.newFixedThreadPool(factories.size() * tenants.size());
		try {
			List<Future<List<Long>>> results = new ArrayList<>();
			for (SessionFactory factory : factories) {
				for (String tenant : tenants) {
					Callable<List<Long>> writer = () -> {
						List<Long> written = new ArrayList<>();
						for (int i = 0; i < perThread; i += 10) {
							written.addAll(TenantContext.callAs(tenant, () -> factory.fromTransaction((session) -> {
								List<Ticket> batch = new ArrayList<>();
								for (int j = 0; j < 10; j++) {
									Ticket ticket = new Ticket(tenant + " " + j);
									session.persist(ticket);
									batch.add(ticket);
								}
								return batch.stream().map(Ticket::getId).toList();
							})));
						}
						return written;
					};
					results.add(threads.submit(writer));
				}
			}
			List<Long> ids = new ArrayList<>();
			for (Future<List<Long>> result : results) {
				ids.addAll(result.get());
			}
			assertThat(ids).hasSize(factories.size() * tenants.size() * perThread);
			return ids;
		}
		finally {
			threads.shutdownNow();
		}
	}

	static Set<Long> rows(DataSource shard) throws SQLException {
		Set<Long> ids = new HashSet<>();
		try (Connection c = shard.getConnection();
				PreparedStatement ps = c.prepareStatement("SELECT id FROM ticket");
				ResultSet rs = ps.executeQuery()) {
			while (rs.next()) {
				ids.add(rs.getLong(1));
			}
		}
		return ids;
	}

}
