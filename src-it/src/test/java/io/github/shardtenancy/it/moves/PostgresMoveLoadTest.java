package io.github.shardtenancy.it.moves;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import io.github.shardtenancy.DirectoryEntry;
import io.github.shardtenancy.MoveStatus;
import io.github.shardtenancy.MoveStep;
import io.github.shardtenancy.RouterSettings;
import io.github.shardtenancy.TenantState;
import io.github.shardtenancy.internal.move.Mover;
import io.github.shardtenancy.it.support.AppInstance;
import io.github.shardtenancy.testing.TenantWriter;
import io.github.shardtenancy.testing.pg.PostgresCluster;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Many online moves under many writers on real PostgreSQL: 16 writer threads over 10 tenants while 20 moves of 3 of
 * those tenants run back to back; afterwards every tenant's owner holds exactly what its writers committed and no other
 * shard holds any of its rows. Prints the freeze windows (p50, p99, max) and the retried rejections per move.
 */
@DisplayName("Online mover on PostgreSQL under many writers and many moves")
class PostgresMoveLoadTest {

	static PostgresCluster cluster;

	@BeforeAll
	static void servers() {
		cluster = PostgresMoveFixture.cluster();
	}

	@Test
	@DisplayName("20 moves of 3 tenants under 16 writers over 10 tenants: every caller returns normally, no tenant "
			+ "loses, duplicates or leaves behind a row")
	void manyMovesUnderManyWritersLoseNothing() throws Exception {
		AtomicBoolean stop = new AtomicBoolean();
		ExecutorService threads = Executors.newFixedThreadPool(16);
		try (AppInstance app = AppInstance.plain(cluster, "load-app", RouterSettings.defaults(), 16);
				AppInstance moverInstance = AppInstance.plain(cluster, "load-mover", RouterSettings.defaults(), 4)) {
			List<String> tenants = new ArrayList<>();
			for (int t = 0; t < 10; t++) {
				String tenant = PostgresCluster.tenant("load" + t);
				tenants.add(tenant);
				app.admin.create(tenant, PostgresCluster.SHARD_IDS.get(t % 3));
			}
			Map<String, List<TenantWriter>> writers = new LinkedHashMap<>();
			List<Future<TenantWriter>> running = new ArrayList<>();
			for (int w = 0; w < 16; w++) {
				String tenant = tenants.get(w % tenants.size());
				TenantWriter writer = PostgresMoveFixture.writer(app, tenant, stop);
				writers.computeIfAbsent(tenant, t -> new ArrayList<>()).add(writer);
				running.add(threads.submit(writer));
			}
			List<TenantWriter> all = writers.values().stream().flatMap(List::stream).toList();
			PostgresOnlineMoverTest.awaitProgress(all);

			Mover mover = PostgresMoveFixture.mover(moverInstance);
			List<Long> freezeMillis = new ArrayList<>();
			List<Long> retries = new ArrayList<>();
			Map<String, String> uncleaned = new LinkedHashMap<>();
			for (int m = 0; m < 20; m++) {
				String tenant = tenants.get(m % 3);
				if (uncleaned.containsKey(tenant)) { // its previous move, cleaned one second after its flip
					assertThat(PostgresOnlineMoverTest.finish(mover, uncleaned.remove(tenant)).step())
						.isEqualTo(MoveStep.DONE);
				}
				DirectoryEntry entry = app.directory.find(tenant).orElseThrow();
				String target = PostgresCluster.SHARD_IDS
					.get((PostgresCluster.SHARD_IDS.indexOf(entry.shardId()) + 1 + m % 2) % 3);
				long rejectedBefore = rejections(writers.get(tenant));
				MoveStatus flipped = mover.status(
						mover.moveAndWait(tenant, target, PostgresOnlineMoverTest.smallBatches()).moveId());
				assertThat(flipped.step()).as("move %d of %s", m, tenant).isEqualTo(MoveStep.FLIPPED);
				uncleaned.put(tenant, flipped.moveId());
				freezeMillis.add(flipped.freezeWindow().orElseThrow().toMillis());
				PostgresOnlineMoverTest.awaitProgress(writers.get(tenant));
				retries.add(rejections(writers.get(tenant)) - rejectedBefore);
			}
			for (String moveId : uncleaned.values()) {
				assertThat(PostgresOnlineMoverTest.finish(mover, moveId).step()).isEqualTo(MoveStep.DONE);
			}
			PostgresOnlineMoverTest.awaitProgress(all);
			stop.set(true);
			for (Future<TenantWriter> writer : running) {
				writer.get(60, TimeUnit.SECONDS); // rethrows a writer's failure: every caller must return normally
			}

			for (String tenant : tenants) {
				DirectoryEntry entry = app.directory.find(tenant).orElseThrow();
				assertThat(entry.state()).as("state of %s", tenant).isEqualTo(TenantState.ACTIVE);
				List<TenantWriter> own = writers.get(tenant);
				assertThat(PostgresMoveFixture.orders(app, entry.shardId(), tenant)).as("orders of %s", tenant)
					.isEqualTo(TenantWriter.committedOrders(own));
				assertThat(PostgresMoveFixture.lines(app, entry.shardId(), tenant)).as("lines of %s", tenant)
					.isEqualTo(TenantWriter.committedLines(own));
				for (String other : PostgresCluster.SHARD_IDS) {
					if (!other.equals(entry.shardId())) {
						assertThat(PostgresMoveFixture.rows(app, other, tenant)).as("rows of %s on %s", tenant, other)
							.isZero();
					}
					assertThat(PostgresMoveFixture.changeLog(app, other, tenant)).as("change log of %s on %s", tenant,
							other).isZero();
				}
			}
			for (String neighbour : tenants.subList(3, tenants.size())) {
				assertThat(rejections(writers.get(neighbour))).as("rejections of unmoved %s", neighbour).isZero();
			}
			List<Long> sorted = freezeMillis.stream().sorted().toList();
			System.out.printf("20 online moves under 16 writers (PostgreSQL): freeze window ms p50=%d p99=%d max=%d; "
					+ "retried rejections per move %s; writer ops %d%n", percentile(sorted, 50),
					percentile(sorted, 99), sorted.get(sorted.size() - 1), retries,
					all.stream().mapToLong(w -> w.ops()).sum());
		}
		finally {
			stop.set(true);
			threads.shutdown();
			threads.awaitTermination(60, TimeUnit.SECONDS);
		}
	}

	private static long rejections(List<TenantWriter> writers) {
		return writers.stream().mapToLong(w -> w.rejections()).sum();
	}

	static long percentile(List<Long> sorted, int p) {
		int index = (int) Math.ceil(p / 100.0 * sorted.size()) - 1;
		return sorted.get(Math.max(0, Math.min(index, sorted.size() - 1)));
	}

}
