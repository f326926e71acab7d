package io.github.shardtenancy.sample.demo;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;

import io.github.shardtenancy.DirectoryEntry;
import io.github.shardtenancy.TenantTable;
import io.github.shardtenancy.ShardTopology;
import io.github.shardtenancy.TenantAdmin;

/**
 * The demo's verification after the run: reads every shard directly and compares each tenant's rows with what the
 * writers saw committed. Runs on one thread, after writers and mover stopped.
 */
final class ShardCheck {

	/** The sample's tenant tables (the ones the entities map), checked on every shard after the run. */
	static final List<TenantTable> TENANT_TABLES = List.of(new TenantTable("customers", "tenant_id"),
			new TenantTable("orders", "tenant_id"), new TenantTable("order_lines", "tenant_id"));

	private final TenantAdmin directory;

	private final ShardTopology topology;

	/**
	 * @param directory where each tenant's owner is read
	 * @param topology the shards, read with plain JDBC
	 */
	ShardCheck(TenantAdmin directory, ShardTopology topology) {
		this.directory = directory;
		this.topology = topology;
	}

	/**
	 * Reads the tenant's rows on every shard with plain JDBC (no routing, no fence) and compares them with the ids the
	 * writers saw committed.
	 */
	DemoReport.TenantCheck check(String tenant, List<String> shards, Set<UUID> committed,
			Map<UUID, String> ownerOfCommitted) {
		DirectoryEntry owner = this.directory.find(tenant).orElseThrow();
		Map<String, List<UUID>> idsByShard = new LinkedHashMap<>();
		long misplaced = 0;
		for (String shard : shards) {
			idsByShard.put(shard, query(shard, "SELECT id FROM orders WHERE tenant_id = ?", tenant));
			if (!shard.equals(owner.shardId())) {
				for (TenantTable table : TENANT_TABLES) {
					misplaced += query(shard, "SELECT id FROM " + table.table() + " WHERE " + table.tenantColumn()
							+ " = ?", tenant).size();
				}
			}
		}
		List<UUID> onOwner = idsByShard.get(owner.shardId());
		Set<UUID> onOwnerSet = Set.copyOf(onOwner);
		Map<UUID, Integer> occurrences = new HashMap<>();
		idsByShard.values().forEach(ids -> ids.forEach(id -> occurrences.merge(id, 1, Integer::sum)));
		long duplicated = occurrences.values().stream().filter(n -> n > 1).count();
		long lost = committed.stream().filter(id -> !onOwnerSet.contains(id)).count();
		long unexpected = onOwnerSet.stream().filter(id -> !committed.contains(id)).count();
		committed.stream().filter(onOwnerSet::contains).forEach(id -> ownerOfCommitted.put(id, owner.shardId()));
		long customers = query(owner.shardId(), "SELECT id FROM customers WHERE tenant_id = ?", tenant).size();
		long withoutOneLine = query(owner.shardId(), "SELECT o.id FROM orders o LEFT JOIN order_lines l "
				+ "ON l.order_id = o.id AND l.tenant_id = o.tenant_id WHERE o.tenant_id = ? GROUP BY o.id "
				+ "HAVING COUNT(l.id) <> 1", tenant).size();
		return new DemoReport.TenantCheck(tenant, owner.shardId(), owner.state().name(), committed.size(),
				onOwner.size(), customers, lost, duplicated, misplaced, unexpected, withoutOneLine);
	}

	private List<UUID> query(String shardId, String sql, String tenant) {
		try (Connection c = this.topology.dataSource(shardId).getConnection();
				PreparedStatement ps = c.prepareStatement(sql)) {
			ps.setString(1, tenant);
			List<UUID> ids = new ArrayList<>();
			try (ResultSet rs = ps.executeQuery()) {
				while (rs.next()) {
					ids.add(rs.getObject(1, UUID.class));
				}
			}
			return ids;
		}
		catch (SQLException ex) {
			throw new IllegalStateException("Cannot read the orders of tenant '" + tenant + "' on shard '" + shardId
					+ "': " + ex.getMessage(), ex);
		}
	}

}
