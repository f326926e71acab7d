package io.github.shardtenancy.internal.load;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import java.util.function.Supplier;

import io.github.shardtenancy.DirectoryUnavailableException;
import io.github.shardtenancy.HotTenant;
import io.github.shardtenancy.LoadMeasure;
import io.github.shardtenancy.ShardRecord;
import io.github.shardtenancy.TenantLoad;
import io.github.shardtenancy.TenantLoads;
import io.github.shardtenancy.TenantState;
import io.github.shardtenancy.TenantTable;
import io.github.shardtenancy.internal.directory.Directory;
import io.github.shardtenancy.internal.topology.ShardRegistry;
import io.github.shardtenancy.internal.topology.Topology;
import io.github.shardtenancy.ShardLoad;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@link TenantLoads}: this instance's traffic from a {@link LoadRecorder} (when tracking is on), storage from each
 * shard's dialect ({@link io.github.shardtenancy.spi.FenceDialect#tenantStorage}), owners from the directory.
 * Thread-safe.
 */
public final class DefaultTenantLoads implements TenantLoads {

	private static final Logger log = LoggerFactory.getLogger(DefaultTenantLoads.class);

	private final Directory directory;

	private final Topology topology;

	private final Supplier<List<TenantTable>> tables;

	private final @Nullable LoadRecorder recorder;

	/**
	 * @param directory the directory
	 * @param topology the shards
	 * @param tables the tenant tables, asked for on each measurement
	 * @param recorder this instance's traffic, or {@code null} when tracking is off
	 */
	public DefaultTenantLoads(Directory directory, Topology topology, Supplier<List<TenantTable>> tables,
			@Nullable LoadRecorder recorder) {
		this.directory = Objects.requireNonNull(directory, "directory");
		this.topology = Objects.requireNonNull(topology, "topology");
		this.tables = Objects.requireNonNull(tables, "tables");
		this.recorder = recorder;
	}

	@Override
	public boolean tracking() {
		return this.recorder != null;
	}

	@Override
	public List<TenantLoad> traffic() {
		return this.recorder != null ? this.recorder.snapshot() : List.of();
	}

	@Override
	public List<TenantLoad> measure() {
		Map<String, String> owners = new TreeMap<>();
		this.directory.snapshot(entry -> {
			if (entry.state() != TenantState.DELETED) {
				owners.put(entry.tenantId(), entry.shardId());
			}
		});
		Map<String, long[]> storage = new HashMap<>();
		for (String shardId : new java.util.TreeSet<>(owners.values())) {
			Topology.Shard shard = this.topology.find(shardId).orElse(null);
			if (shard == null) {
				continue;
			}
			try {
				storage.putAll(storage(shard));
			}
			catch (SQLException | RuntimeException ex) {
				log.warn("Could not measure the tenants' storage on shard '{}'; its tenants' storage figures are "
						+ "left unknown (-1): {}", shardId, ex.getMessage());
			}
		}
		Map<String, TenantLoad> traffic = new HashMap<>();
		for (TenantLoad load : traffic()) {
			traffic.put(load.tenantId(), load);
		}
		List<TenantLoad> loads = new ArrayList<>(owners.size());
		owners.forEach((tenantId, shardId) -> {
			TenantLoad seen = traffic.get(tenantId);
			long[] stored = storage.get(tenantId + '\u0000' + shardId);
			boolean measured = storage.containsKey('\u0000' + shardId);
			long rows = stored != null ? stored[0] : measured ? 0 : -1;
			long bytes = stored != null ? stored[1] : -1;
			loads.add(new TenantLoad(tenantId, shardId, seen != null ? seen.transactions() : 0,
					seen != null ? seen.rowsWritten() : 0, seen != null ? seen.nanosSpent() : 0, rows, bytes));
		});
		return loads;
	}

	/**
	 * @return per {@code tenant + NUL + shard}: {@code {rows, bytes}} summed over the tenant tables (bytes -1 if the
	 * dialect estimates none), plus a marker key {@code NUL + shard} once the shard was read
	 */
	private Map<String, long[]> storage(Topology.Shard shard) throws SQLException {
		Map<String, long[]> result = new HashMap<>();
		try (Connection c = shard.dataSource().getConnection()) {
			// Reads every tenant's rows: under the maintenance mark, which row-level security lets read them all.
			shard.dialect().beginMaintenance(c);
			try {
				for (TenantTable table : this.tables.get()) {
					shard.dialect().tenantStorage(c, table.table(), table.tenantColumn(), (tenantId, rows, bytes) -> {
						long[] sum = result.computeIfAbsent(tenantId + '\u0000' + shard.id(), k -> new long[] { 0, -1 });
						sum[0] += rows;
						if (bytes >= 0) {
							sum[1] = Math.max(sum[1], 0) + bytes;
						}
					});
				}
			}
			finally {
				c.rollback();
				c.setAutoCommit(true);
			}
		}
		result.put('\u0000' + shard.id(), new long[0]);
		return result;
	}

	@Override
	public List<ShardLoad> shards(List<TenantLoad> tenants) {
		Map<String, long[]> sums = new TreeMap<>();
		Map<String, String> regions = new HashMap<>();
		for (ShardRecord record : activeShards()) {
			sums.put(record.shardId(), new long[6]);
			if (record.region() != null) {
				regions.put(record.shardId(), record.region());
			}
		}
		for (TenantLoad load : tenants) {
			long[] sum = sums.get(load.shardId());
			if (sum == null) {
				continue;
			}
			sum[0]++;
			sum[1] += load.transactions();
			sum[2] += load.rowsWritten();
			sum[3] += load.nanosSpent();
			sum[4] += Math.max(load.rowsStored(), 0);
			sum[5] += Math.max(load.bytesStored(), 0);
		}
		List<ShardLoad> shards = new ArrayList<>(sums.size());
		sums.forEach((shardId, s) -> shards
			.add(new ShardLoad(shardId, regions.get(shardId), s[0], s[1], s[2], s[3], s[4], s[5])));
		return shards;
	}

	/**
	 * @return the ACTIVE registered shards
	 * @throws DirectoryUnavailableException if the registry cannot be read
	 */
	List<ShardRecord> activeShards() {
		try (Connection c = this.directory.dataSource().getConnection()) {
			return ShardRegistry.active(c);
		}
		catch (SQLException ex) {
			throw new DirectoryUnavailableException(null, -1, ex);
		}
	}

	@Override
	public List<HotTenant> hotTenants(List<TenantLoad> tenants, LoadMeasure measure, double threshold) {
		if (!(threshold > 0 && threshold <= 1)) {
			throw new IllegalArgumentException("threshold must be a share greater than 0 and at most 1: " + threshold);
		}
		Map<String, Long> totals = new HashMap<>();
		for (TenantLoad load : tenants) {
			totals.merge(load.shardId(), Math.max(measure.of(load), 0), Long::sum);
		}
		List<HotTenant> hot = new ArrayList<>();
		for (TenantLoad load : tenants) {
			long value = Math.max(measure.of(load), 0);
			long total = totals.get(load.shardId());
			if (total > 0 && value > threshold * total) {
				hot.add(new HotTenant(load.tenantId(), load.shardId(), measure, value, total, (double) value / total));
			}
		}
		hot.sort(Comparator.comparingDouble(HotTenant::share).reversed().thenComparing(HotTenant::tenantId));
		return hot;
	}

}
