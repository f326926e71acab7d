package io.github.shardtenancy.sample.live;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import io.github.shardtenancy.DirectoryUnavailableException;
import io.github.shardtenancy.TenantAdmin;
import io.github.shardtenancy.DirectoryEntry;
import io.github.shardtenancy.TenantState;
import io.github.shardtenancy.TenantRouter;
import io.github.shardtenancy.sample.demo.RetryObserver;
import io.github.shardtenancy.ShardTopology;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.stereotype.Component;

/**
 * Reads what the live page shows: the directory (one snapshot), the orders on each shard (one {@code GROUP BY} per
 * shard on a plain pooled connection, outside any tenant, so the fence is not involved), the moves, the retry
 * counters and the bursts. Each call reads afresh; nothing is cached. Thread-safe.
 */
@Component
@ConditionalOnWebApplication
public class LiveStateReader {

	private final TenantAdmin directory;

	private final TenantRouter router;

	private final ShardTopology topology;

	private final RetryObserver retries;

	private final LiveMoves moves;

	private final LiveBursts bursts;

	/**
	 * @param directory the directory
	 * @param router this instance's router
	 * @param topology the shards
	 * @param retries the retry counters
	 * @param moves the moves
	 * @param bursts the bursts
	 */
	public LiveStateReader(TenantAdmin directory, TenantRouter router, ShardTopology topology, RetryObserver retries,
			LiveMoves moves, LiveBursts bursts) {
		this.directory = directory;
		this.router = router;
		this.topology = topology;
		this.retries = retries;
		this.moves = moves;
		this.bursts = bursts;
	}

	/**
	 * @return the state now
	 * @throws DirectoryUnavailableException if the directory cannot be read
	 * @throws IllegalStateException if a shard cannot be read
	 */
	public LiveState read() {
		Map<String, DirectoryEntry> entries = new TreeMap<>();
		long version = this.directory.snapshot(entry -> entries.put(entry.tenantId(), entry));
		List<LiveState.Shard> shards = new ArrayList<>();
		for (String shardId : this.topology.shardIds().stream().sorted().toList()) {
			Map<String, Long> orders = ordersByTenant(shardId, version);
			List<LiveState.Tenant> owned = new ArrayList<>();
			List<LiveState.Tenant> copies = new ArrayList<>();
			for (DirectoryEntry entry : entries.values()) {
				if (entry.shardId().equals(shardId) && entry.state() != TenantState.DELETED) {
					owned.add(tenant(entry, orders.getOrDefault(entry.tenantId(), 0L)));
				}
			}
			orders.forEach((tenantId, count) -> {
				DirectoryEntry entry = entries.get(tenantId);
				if (entry != null && !entry.shardId().equals(shardId)) {
					copies.add(tenant(entry, count));
				}
			});
			copies.sort(Comparator.comparing(LiveState.Tenant::id));
			shards.add(new LiveState.Shard(shardId, orders.values().stream().mapToLong(Long::longValue).sum(), owned,
					copies));
		}
		List<DirectoryEntry> moving = entries.values()
			.stream()
			.filter(e -> e.state() == TenantState.MIGRATING || e.state() == TenantState.FROZEN)
			.toList();
		Map<String, Long> rejections = this.retries.rejectionsByReason();
		LiveState.Retries retryCounts = new LiveState.Retries(this.retries.executions(), this.retries.retries(),
				rejections.values().stream().mapToLong(Long::longValue).sum(), rejections,
				this.retries.serializationFailures(), this.retries.otherFailures());
		return new LiveState(Instant.now(), version, this.router.version(), shards, this.moves.moves(moving),
				retryCounts, this.router.stats(), this.bursts.bursts());
	}

	private static LiveState.Tenant tenant(DirectoryEntry entry, long orders) {
		return new LiveState.Tenant(entry.tenantId(), entry.state().name(), entry.targetShardId(), entry.epoch(),
				entry.version(), orders);
	}

	private Map<String, Long> ordersByTenant(String shardId, long version) {
		Map<String, Long> orders = new HashMap<>();
		try (Connection c = this.topology.dataSource(shardId).getConnection();
				PreparedStatement ps = c.prepareStatement("SELECT tenant_id, COUNT(*) FROM orders GROUP BY tenant_id");
				ResultSet rs = ps.executeQuery()) {
			while (rs.next()) {
				orders.put(rs.getString(1), rs.getLong(2));
			}
		}
		catch (SQLException ex) {
			throw new IllegalStateException("Cannot count the orders on shard '" + shardId + "' (directory version "
					+ version + "): " + ex.getMessage(), ex);
		}
		return orders;
	}

}
