package io.github.shardtenancy.hostile;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

import io.github.shardtenancy.InvalidDirectoryEntryException;
import io.github.shardtenancy.ShardTenancyException;
import io.github.shardtenancy.TenantContext;
import io.github.shardtenancy.UnknownShardException;
import io.github.shardtenancy.TenantState;
import io.github.shardtenancy.RouterSettings;
import io.github.shardtenancy.internal.routing.Router;
import io.github.shardtenancy.testing.Note;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Label;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.lifecycle.AfterContainer;
import net.jqwik.api.lifecycle.BeforeContainer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

/**
 * Directory rows the library never writes (an unknown shard, an unknown state, an epoch below 1), inserted with plain
 * SQL into a real H2 directory: a lookup of that tenant fails with a typed error naming the row, and the router keeps
 * serving every other tenant, through its sync, a full snapshot and a fresh router's cold start.
 */
@Label("Hostile directory rows")
class HostileDirectoryRowProperties {

	static HostileH2Cluster cluster;

	static final AtomicInteger counter = new AtomicInteger();

	static final List<String> neighbours = List.of("steady-1", "steady-2", "steady-3");

	@BeforeContainer
	static void start() {
		cluster = new HostileH2Cluster();
		for (int i = 0; i < neighbours.size(); i++) {
			cluster.admin.create(neighbours.get(i), HostileH2Cluster.SHARDS.get(i % 2));
		}
	}

	@AfterContainer
	static void stop() {
		cluster.close();
	}

	/** A row to insert: which rule it breaks, and the values. */
	record HostileRow(String kind, String shardId, String state, long epoch) {
	}

	@Property(tries = 60)
	@Label("a row with an unknown shard, an unknown state or an epoch below 1 is refused with a typed error naming it, and every other tenant keeps routing")
	void hostileRowIsRefusedNamingItAndTheRestKeepsRouting(@ForAll("hostileRows") HostileRow row) throws Exception {
		String tenant = "hostile-" + counter.incrementAndGet();
		long version = insertRaw(tenant, row);

		// The background sync, a full snapshot and a fresh router's cold start all get past the row.
		cluster.router.refresh();
		cluster.router.loadSnapshot();
		try (Router fresh = new Router(cluster.directory, RouterSettings.defaults())) {
			fresh.start();
			assertThat(fresh.version()).isGreaterThanOrEqualTo(version);
			for (String n : neighbours) {
				assertThat(fresh.route(n).state()).isEqualTo(TenantState.ACTIVE);
			}
		}

		Throwable refused = catchThrowable(() -> TenantContext.runAs(tenant,
				() -> cluster.sessions.inTransaction(session -> session.persist(new Note("never")))));
		ShardTenancyException typed = typed(refused);
		if (row.kind().equals("unknown-shard")) {
			assertThat(typed).isInstanceOf(UnknownShardException.class);
			assertThat(typed.shardId()).isEqualTo(row.shardId());
			assertThat(typed.directoryVersion()).isEqualTo(version);
		}
		else {
			assertThat(typed).isInstanceOf(InvalidDirectoryEntryException.class);
			assertThat(typed.getMessage()).contains("epoch " + row.epoch()).contains(row.state());
		}
		assertThat(typed.tenantId()).isEqualTo(tenant);
		assertThat(typed.getMessage()).contains(tenant);
		for (String n : HostileH2Cluster.SHARDS) {
			assertThat(rows(n, tenant)).isZero();
		}

		// Every other tenant keeps routing and writing on this router.
		for (String n : neighbours) {
			TenantContext.runAs(n, () -> cluster.sessions.inTransaction(session -> session.persist(new Note("still"))));
		}
	}

	@Provide
	Arbitrary<HostileRow> hostileRows() {
		Arbitrary<String> unknownShard = Arbitraries.strings().withCharRange('!', '~').ofMinLength(1).ofMaxLength(64)
			.filter(s -> !HostileH2Cluster.SHARDS.contains(s));
		Arbitrary<HostileRow> shardRows = unknownShard.map(s -> new HostileRow("unknown-shard", s, "ACTIVE", 1));
		Arbitrary<String> unknownState = Arbitraries.oneOf(
				Arbitraries.of("active", "Active", "", " ", "ACTIVE ", "PAUSED", "DELETED;", "MIGRATING'--", "null"),
				Arbitraries.strings().withCharRange(' ', '~').ofMaxLength(16))
			.filter(s -> !isState(s));
		Arbitrary<HostileRow> stateRows = Combinators
			.combine(unknownState, Arbitraries.longs().between(1, Long.MAX_VALUE))
			.as((state, epoch) -> new HostileRow("unknown-state", "shard-1", state, epoch));
		Arbitrary<HostileRow> epochRows = Combinators
			.combine(Arbitraries.of(TenantState.class).map(Enum::name), Arbitraries.longs().between(Long.MIN_VALUE, 0))
			.as((state, epoch) -> new HostileRow("bad-epoch", "shard-2", state, epoch));
		return Arbitraries.oneOf(shardRows, stateRows, epochRows);
	}

	static boolean isState(String s) {
		for (TenantState state : TenantState.values()) {
			if (state.name().equals(s)) {
				return true;
			}
		}
		return false;
	}

	/** Inserts the row with plain SQL, bumping the directory version as a writer would; returns the row's version. */
	static long insertRaw(String tenant, HostileRow row) throws SQLException {
		try (Connection c = cluster.directoryPool.getConnection()) {
			c.setAutoCommit(false);
			try (Statement st = c.createStatement()) {
				st.executeUpdate("UPDATE shard_directory_version SET version = version + 1 WHERE id = 1");
			}
			long version;
			try (Statement st = c.createStatement();
					ResultSet rs = st.executeQuery("SELECT version FROM shard_directory_version WHERE id = 1")) {
				rs.next();
				version = rs.getLong(1);
			}
			try (PreparedStatement ps = c.prepareStatement("INSERT INTO shard_directory_entry (tenant_id, shard_id, "
					+ "state, target_shard_id, epoch, version, updated_at, updated_by) "
					+ "VALUES (?, ?, ?, NULL, ?, ?, CURRENT_TIMESTAMP, 'hostile-test')")) {
				ps.setString(1, tenant);
				ps.setString(2, row.shardId());
				ps.setString(3, row.state());
				ps.setLong(4, row.epoch());
				ps.setLong(5, version);
				ps.executeUpdate();
			}
			c.commit();
			return version;
		}
	}

	static long rows(String shardId, String tenantId) {
		return io.github.shardtenancy.testing.ShardTenancyFixture.queryLong(cluster.shardPools.get(shardId),
				"SELECT COUNT(*) FROM note WHERE tenant_id = ?", tenantId);
	}

	static ShardTenancyException typed(Throwable failure) {
		for (Throwable t = failure; t != null; t = t.getCause()) {
			if (t instanceof ShardTenancyException typed) {
				return typed;
			}
		}
		throw new AssertionError("No typed error in the chain", failure);
	}

}
