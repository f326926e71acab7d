package io.github.shardtenancy.testing.ids;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import javax.sql.DataSource;

import io.github.shardtenancy.IdSettings;
import io.github.shardtenancy.MoveResult;
import io.github.shardtenancy.MoveSettings;
import io.github.shardtenancy.MoveStep;
import io.github.shardtenancy.ShardTenancy;
import io.github.shardtenancy.TenantContext;
import org.hibernate.SessionFactory;
import org.jspecify.annotations.Nullable;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The {@link IntTicket} scenario of the {@code @ShardSafeId} Integer-id tests on H2 and PostgreSQL (tables of
 * {@link Tickets#CHANGELOG}, instances of {@link Tickets#instance}).
 */
public final class IntTickets {

	private IntTickets() {
	}

	/**
	 * Two started instances on the same directory and shards each build a session factory; four threads per instance
	 * and tenant write {@code tenantA} (created on {@code shard-1}) and {@code tenantB} (on {@code shard-2}) at once,
	 * ten tickets per transaction; then {@code tenantA} is moved online to {@code shard-2}. Asserts that no id was
	 * handed out twice (across instances, threads and shards), that {@code shard-2} then holds every row and
	 * {@code shard-1} none, and that inserts after the move get new ids; that the ids come from the counter of table
	 * {@code int_ticket}, unused before (so numbered from 1, with no more gaps than one block per instance), that
	 * {@code nextIntId("int_ticket")} continues it, and that the default counter ({@code nextIntId()}) is apart.
	 * @param first an instance, started; its mover moves
	 * @param second another instance, started
	 * @param dialect Hibernate's dialect class name
	 * @param tenantA the tenant moved (new)
	 * @param tenantB the tenant already on the target (new)
	 * @param perThread tickets per thread, a multiple of 10
	 * @return the ids written
	 * @throws Exception if a writer failed
	 */
	public static List<Integer> twoInstancesThenMove(ShardTenancy first, ShardTenancy second, String dialect,
			String tenantA, String tenantB, int perThread) throws Exception {
		DataSource directory = first.directoryDataSource();
		assertThat(counter(directory, "int_ticket")).as("the table's counter is unused before").isNull();
		first.admin().create(tenantA, "shard-1");
		first.admin().create(tenantB, "shard-2");
		try (SessionFactory firstFactory = Tickets.sessionFactory(first, dialect);
				SessionFactory secondFactory = Tickets.sessionFactory(second, dialect)) {
			ExecutorService threads = Executors.newFixedThreadPool(16);
			List<Integer> ids = new ArrayList<>();
			try {
				List<Future<List<Integer>>> results = new ArrayList<>();
				for (SessionFactory factory : List.of(firstFactory, secondFactory)) {
					for (String tenant : List.of(tenantA, tenantB)) {
						for (int thread = 0; thread < 4; thread++) {
							results.add(threads.submit(() -> write(factory, tenant, perThread)));
						}
					}
				}
				for (Future<List<Integer>> result : results) {
					ids.addAll(result.get());
				}
			}
			finally {
				threads.shutdownNow();
			}
			assertThat(ids).hasSize(2 * 2 * 4 * perThread).doesNotContainNull().allMatch((id) -> id > 0);
			assertThat(new HashSet<>(ids)).as("ids handed out").hasSize(ids.size());

			MoveResult moved = first.mover().moveAndWait(tenantA, "shard-2", MoveSettings.defaults());

			assertThat(moved.step()).isEqualTo(MoveStep.DONE);
			assertThat(ids(first.topology().dataSource("shard-2"))).as("rows on shard-2 after the move")
				.containsAll(ids);
			assertThat(ids(first.topology().dataSource("shard-1"))).as("source cleaned").doesNotContainAnyElementsOf(ids);
			List<Integer> after = write(firstFactory, tenantA, 10);
			assertThat(ids).doesNotContainAnyElementsOf(after);
			assertThat(ids(first.topology().dataSource("shard-2"))).containsAll(after);

			Long counter = counter(directory, "int_ticket");
			List<Integer> all = new ArrayList<>(ids);
			all.addAll(after);
			assertThat(all).as("from the table's counter, which started at 1").contains(1)
				.allMatch((id) -> id < counter);
			// Each instance skips at most the rest of its one block in hand.
			assertThat(counter - 1).as("ids leased from the table's counter")
				.isBetween((long) all.size(), all.size() + 2L * IdSettings.DEFAULT_INTEGER_BLOCK_SIZE);
			int jdbcId = second.nextIntId("INT_TICKET");
			assertThat(all).as("plain JDBC ids of the table continue its counter").doesNotContain(jdbcId);
			assertThat(jdbcId).isBetween(1, Math.toIntExact(counter(directory, "int_ticket")) - 1);
			Long before = counter(directory, "integer");
			long tableCounter = counter(directory, "int_ticket");
			int defaultId = first.nextIntId();
			if (before == null) {
				assertThat(defaultId).as("the default counter, unused before, starts at 1").isEqualTo(1);
			}
			assertThat(defaultId).isLessThan(counter(directory, "integer").intValue());
			assertThat(counter(directory, "int_ticket")).as("the default counter leaves the table's alone")
				.isEqualTo(tableCounter);
			return ids;
		}
	}

	private static @Nullable Long counter(DataSource directory, String name) throws SQLException {
		try (Connection c = directory.getConnection();
				PreparedStatement ps = c.prepareStatement("SELECT next_id FROM shard_id_block WHERE counter_name = ?")) {
			ps.setString(1, name);
			try (ResultSet rs = ps.executeQuery()) {
				return rs.next() ? rs.getLong(1) : null;
			}
		}
	}

	private static List<Integer> write(SessionFactory factory, String tenant, int count) throws Exception {
		List<Integer> written = new ArrayList<>();
		for (int i = 0; i < count; i += 10) {
			written.addAll(TenantContext.callAs(tenant, () -> factory.fromTransaction((session) -> {
				List<IntTicket> batch = new ArrayList<>();
				for (int j = 0; j < 10; j++) {
					IntTicket ticket = new IntTicket(tenant + " " + j);
					session.persist(ticket);
					batch.add(ticket);
				}
				return batch.stream().map(IntTicket::getId).toList();
			})));
		}
		return written;
	}

	/**
	 * @param shard a shard's pool
	 * @return the ids of every Integer-id ticket on it
	 * @throws SQLException on a database error
	 */
	public static Set<Integer> ids(DataSource shard) throws SQLException {
		Set<Integer> ids = new HashSet<>();
		Tickets.ids(shard, "int_ticket").forEach((id) -> ids.add(Math.toIntExact(id)));
		return ids;
	}

}
