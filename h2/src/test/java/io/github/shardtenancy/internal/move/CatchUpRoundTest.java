package io.github.shardtenancy.internal.move;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.stream.LongStream;

import io.github.shardtenancy.internal.topology.Topology;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link CatchUpRound#apply} on real H2 shards, on both sides of the number of keys whose rows a round keeps from its
 * first read: a round of more keys reads its rows again when it writes them, one of fewer writes the rows it read.
 * Either way the target ends with the source's rows of the logged keys and without the rows of the keys the source
 * no longer has.
 */
@DisplayName("A catch-up round's writes, with its rows kept or read again")
class CatchUpRoundTest {

	private static final String TENANT = "acme";

	private final MoveFixture fixture = new MoveFixture(2, 4);

	@AfterEach
	void close() {
		this.fixture.close();
	}

	@Test
	@DisplayName("a round of more keys than it keeps rows for (10,300 present, 50 gone): the target holds exactly the "
			+ "source's rows")
	void largeRoundReadsItsRowsAgain() throws SQLException {
		applyRound(10_300, 50);
	}

	@Test
	@DisplayName("a round of a few keys (300 present, 50 gone): the target holds exactly the source's rows")
	void smallRoundWritesTheRowsItRead() throws SQLException {
		applyRound(300, 50);
	}

	/**
	 * Writes {@code present} orders of the tenant on the source and {@code gone} others only on the target (as if
	 * deleted on the source during the move), logs every one of their keys, and applies one round.
	 */
	private void applyRound(int present, int gone) throws SQLException {
		Topology.Shard source = this.fixture.topology().shard("shard-1");
		Topology.Shard target = this.fixture.topology().shard("shard-2");
		insertOrders(source, LongStream.rangeClosed(1, present), 7);
		insertOrders(target, LongStream.rangeClosed(1, present / 2), 1);
		insertOrders(target, LongStream.rangeClosed(1_000_000, 1_000_000 + gone - 1), 1);
		List<TablePlan> plans;
		try (Connection c = source.dataSource().getConnection()) {
			plans = TablePlan.plan(c, source.dialect(), "shard-1", TENANT, MoveFixture.TABLES);
		}
		TablePlan orders = plans.stream().filter(p -> p.name().equals("CUSTOMER_ORDER")).findFirst().orElseThrow();
		LinkedHashSet<String> keys = new LinkedHashSet<>();
		LongStream.rangeClosed(1, present).forEach(id -> keys.add(Long.toString(id)));
		LongStream.rangeClosed(1_000_000, 1_000_000 + gone - 1).forEach(id -> keys.add(Long.toString(id)));
		Map<TablePlan, LinkedHashSet<String>> logged = new LinkedHashMap<>();
		logged.put(orders, keys);

		try (Connection c = source.dataSource().getConnection()) {
			source.dialect().beginSnapshotRead(c);
			CatchUpRound.apply(c, target, TENANT, plans, logged, 500, Duration.ZERO, data -> {
			});
			c.commit();
			c.setAutoCommit(true);
		}

		Map<Long, Integer> onTarget = this.fixture.orders("shard-2", TENANT);
		assertThat(onTarget).as("the tenant's orders on the target").hasSize(present);
		assertThat(onTarget).isEqualTo(this.fixture.orders("shard-1", TENANT));
	}

	/** Inserts orders of the tenant with an amount, as the mover writes (its mark lets them past the fence). */
	private static void insertOrders(Topology.Shard shard, LongStream ids, int amount) throws SQLException {
		try (Connection c = shard.dataSource().getConnection()) {
			c.setAutoCommit(false);
			shard.dialect().beginMover(c, TENANT);
			try (PreparedStatement ps = c
				.prepareStatement("INSERT INTO customer_order (id, tenant_id, amount) VALUES (?, ?, ?)")) {
				for (long id : ids.toArray()) {
					ps.setLong(1, id);
					ps.setString(2, TENANT);
					ps.setInt(3, amount);
					ps.addBatch();
				}
				ps.executeBatch();
			}
			c.commit();
			shard.dialect().end(c);
			c.setAutoCommit(true);
		}
	}

}
