package io.github.shardtenancy.testing.ids;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.function.Function;

import javax.sql.DataSource;

import com.zaxxer.hikari.HikariConfig;
import io.github.shardtenancy.IdSettings;
import io.github.shardtenancy.MoveResult;
import io.github.shardtenancy.MoveSettings;
import io.github.shardtenancy.MoveStep;
import io.github.shardtenancy.ShardTenancy;
import io.github.shardtenancy.TenantContext;
import io.github.shardtenancy.TenantTable;
import org.hibernate.SessionFactory;
import org.hibernate.cfg.Configuration;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The {@link Ticket} table of the {@code @ShardSafeId} tests on H2 and PostgreSQL: its changelog, its tenant table, a
 * plain Hibernate session factory on a tenancy, concurrent writers and a raw read of a shard's ids.
 */
public final class Tickets {

	/** The shard changelog creating table {@code ticket}. */
	public static final String CHANGELOG = "db/ids-test/tickets.xml";

	/** The tenant tables: {@code ticket} ({@link Ticket}) and {@code int_ticket} ({@link IntTicket}). */
	public static final List<TenantTable> TABLES = List.of(new TenantTable("ticket", "tenant_id"),
			new TenantTable("int_ticket", "tenant_id"));

	private Tickets() {
	}

	/**
	 * @param actor who the instance is
	 * @param pools a new pool configuration of the database {@code "directory"}, {@code "shard-1"} or
	 * {@code "shard-2"}
	 * @return an application instance (a tenancy, not started) on that directory and shards {@code shard-1} and
	 * {@code shard-2}, with the ticket table as its tenant table
	 */
	public static ShardTenancy instance(String actor, Function<String, HikariConfig> pools) {
		return ShardTenancy.builder()
			.directory(pools.apply("directory"))
			.shard("shard-1", pools.apply("shard-1"))
			.shard("shard-2", pools.apply("shard-2"))
			.tenantTables(TABLES)
			.actor(actor)
			.build();
	}

	/**
	 * @param tenancy the tenancy
	 * @param dialect Hibernate's dialect class name
	 * @return a session factory mapping {@link Ticket} and {@link IntTicket}, on the tenancy's
	 * {@link ShardTenancy#hibernateSettings()}
	 */
	public static SessionFactory sessionFactory(ShardTenancy tenancy, String dialect) {
		Configuration configuration = new Configuration().addAnnotatedClass(Ticket.class)
			.addAnnotatedClass(IntTicket.class);
		configuration.getProperties().putAll(tenancy.hibernateSettings());
		configuration.setProperty("hibernate.dialect", dialect);
		configuration.setProperty("hibernate.hbm2ddl.auto", "none");
		return configuration.buildSessionFactory();
	}

	/**
	 * Every factory writes tickets for every tenant, each pair on its own thread, ten per transaction, so that every
	 * instance writes every shard in the same milliseconds.
	 * @param factories the session factories, one per application instance
	 * @param tenants the tenants
	 * @param perThread tickets per factory and tenant, a multiple of 10
	 * @return the ids of every ticket written
	 * @throws Exception if a writer failed
	 */
	public static List<Long> insertConcurrently(List<SessionFactory> factories, List<String> tenants, int perThread)
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
			return ids;
		}
		finally {
			threads.shutdownNow();
		}
	}

	/**
	 * The scenario of the {@code @ShardSafeId} tests: two started instances (tenancies on the same directory and shards
	 * {@code shard-1} and {@code shard-2}, migrated with {@link #CHANGELOG}) build a session factory each (leasing a
	 * generator id each), write tenant {@code acme} (on {@code shard-1}) and {@code globex} (on {@code shard-2}) at
	 * once, and {@code acme} is moved online to {@code shard-2}; asserts that no id was handed out twice, that each
	 * instance used its own generator id, and that {@code shard-2} then holds every row and {@code shard-1} none.
	 * @param first an instance, started; its mover moves
	 * @param second another instance, started
	 * @param dialect Hibernate's dialect class name
	 * @param perThread tickets per instance and tenant, a multiple of 10
	 * @return the ids written
	 * @throws Exception if a writer failed
	 */
	public static List<Long> twoInstancesThenMove(ShardTenancy first, ShardTenancy second, String dialect,
			int perThread) throws Exception {
		first.admin().create("acme", "shard-1");
		first.admin().create("globex", "shard-2");
		try (SessionFactory firstFactory = sessionFactory(first, dialect);
				SessionFactory secondFactory = sessionFactory(second, dialect)) {
			List<Long> ids = insertConcurrently(List.of(firstFactory, secondFactory), List.of("acme", "globex"),
					perThread);
			assertThat(ids).hasSize(2 * 2 * perThread);
			assertThat(new HashSet<>(ids)).as("ids handed out").hasSize(ids.size());
			assertThat(ids.stream().map(IdSettings::generatorOf).distinct()).as("one generator id per instance")
				.hasSize(2);

			MoveResult moved = first.mover().moveAndWait("acme", "shard-2", MoveSettings.defaults());

			assertThat(moved.step()).isEqualTo(MoveStep.DONE);
			assertThat(ids(first.topology().dataSource("shard-2"))).as("rows on shard-2 after the move")
				.containsExactlyInAnyOrderElementsOf(ids);
			assertThat(ids(first.topology().dataSource("shard-1"))).as("source cleaned").isEmpty();
			// Writes after the move keep going, still unique.
			Long after = TenantContext.callAs("acme", () -> firstFactory.fromTransaction((session) -> {
				Ticket ticket = new Ticket("after the move");
				session.persist(ticket);
				return ticket.getId();
			}));
			assertThat(ids).doesNotContain(after);
			assertThat(ids(first.topology().dataSource("shard-2"))).hasSize(ids.size() + 1);
			return ids;
		}
	}

	/**
	 * @param shard a shard's pool
	 * @return the ids of every ticket on it
	 * @throws SQLException on a database error
	 */
	public static Set<Long> ids(DataSource shard) throws SQLException {
		return ids(shard, "ticket");
	}

	/**
	 * @param shard a shard's pool
	 * @param table {@code ticket} or {@code int_ticket}
	 * @return the ids of every row of that table on the shard
	 * @throws SQLException on a database error
	 */
	static Set<Long> ids(DataSource shard, String table) throws SQLException {
		Set<Long> ids = new HashSet<>();
		try (Connection c = shard.getConnection();
				PreparedStatement ps = c.prepareStatement("SELECT id FROM " + table);
				ResultSet rs = ps.executeQuery()) {
			while (rs.next()) {
				ids.add(rs.getLong(1));
			}
		}
		return ids;
	}

}
