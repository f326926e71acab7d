package io.github.shardtenancy.internal.reconcile;

import io.github.shardtenancy.ReconciliationReport;
import io.github.shardtenancy.ReferenceDataReport;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Supplier;
import java.util.Set;
import java.util.TreeMap;

import io.github.shardtenancy.DirectoryUnavailableException;
import io.github.shardtenancy.TenantTable;
import io.github.shardtenancy.internal.directory.Directory;
import io.github.shardtenancy.DirectoryEntry;
import io.github.shardtenancy.TenantState;
import io.github.shardtenancy.ReconciliationReport.MisplacedRows;
import io.github.shardtenancy.ReconciliationReport.MissingRows;
import io.github.shardtenancy.internal.topology.Topology;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Compares the directory with where rows actually are: takes a snapshot of every entry, counts each tenant's rows in
 * each tenant table of each shard of the topology ({@code SELECT tenant, COUNT(*) ... GROUP BY tenant}), and reports
 * <ul>
 * <li>rows on a shard that does not own their tenant: the tenant has no entry, or its entry names another owner
 * (a shard that is the target of the tenant's move in progress, or the DELETED tenant's own shard before a purge, is
 * not reported);</li>
 * <li>ACTIVE tenants with no row in any tenant table of their owner.</li>
 * </ul>
 * The shards are read after the snapshot, without stopping writers or movers, so a tenant moved or created during
 * the run can show up; a finding that persists across two runs is real. Rows left on a source during a move's
 * clean-up delay are reported until the clean-up deletes them.
 *
 * <p>Run on demand ({@link #run()}) or on a schedule (the Spring Boot module schedules it when
 * {@code shard-tenancy.reconciliation.enabled=true}); {@link #lastReport()} exposes the latest findings. Runs are
 * serialised; thread-safe.
 */
public class Reconciler {

	private static final Logger log = LoggerFactory.getLogger(Reconciler.class);

	private final Directory directory;

	private final Topology topology;

	private final List<TenantTable> tables;

	private volatile ReconciliationReport lastReport;

	private volatile @Nullable Supplier<@Nullable ReferenceDataReport> reference;

	/**
	 * @param directory the directory
	 * @param topology the shards to read
	 * @param tables the tenant tables to count
	 */
	public Reconciler(Directory directory, Topology topology, List<TenantTable> tables) {
		this.directory = Objects.requireNonNull(directory, "directory");
		this.topology = Objects.requireNonNull(topology, "topology");
		this.tables = List.copyOf(tables);
	}

	/**
	 * Runs one reconciliation and keeps its report as {@link #lastReport()}.
	 * @return the report; a shard that cannot be read is listed as unreachable, not thrown
	 * @throws DirectoryUnavailableException if the directory cannot be read (no report is kept)
	 */
	public synchronized ReconciliationReport run() {
		Instant started = Instant.now();
		Map<String, DirectoryEntry> entries = new HashMap<>();
		long version = this.directory.snapshot(entry -> entries.put(entry.tenantId(), entry));
		List<MisplacedRows> misplaced = new ArrayList<>();
		Set<String> ownersWithRows = new HashSet<>();
		Map<String, String> unreachable = new TreeMap<>();
		List<String> checked = new ArrayList<>();
		for (String shardId : this.topology.shardIds()) {
			Map<String, Map<String, Long>> rowsByTable;
			try {
				rowsByTable = count(this.topology.shard(shardId));
			}
			catch (SQLException | RuntimeException ex) {
				unreachable.put(shardId, ex.getMessage());
				continue;
			}
			checked.add(shardId);
			rowsByTable.forEach((table, byTenant) -> byTenant.forEach((tenant, rows) -> {
				DirectoryEntry entry = entries.get(tenant);
				if (entry != null && entry.shardId().equals(shardId)) {
					ownersWithRows.add(tenant); // a DELETED tenant's rows on its own shard wait for the purge
					return;
				}
				if (entry != null && shardId.equals(entry.targetShardId())) {
					return; // the target of a move in progress
				}
				misplaced.add(new MisplacedRows(shardId, tenant, table, rows, entry != null ? entry.shardId() : null,
						entry != null ? entry.state() : null));
			}));
		}
		List<MissingRows> missing = new ArrayList<>();
		entries.values().stream()
			.filter(e -> e.state() == TenantState.ACTIVE && checked.contains(e.shardId()))
			.filter(e -> !ownersWithRows.contains(e.tenantId()))
			.sorted(java.util.Comparator.comparing(DirectoryEntry::tenantId))
			.forEach(e -> missing.add(new MissingRows(e.tenantId(), e.shardId(), e.version())));
		misplaced.sort(java.util.Comparator.comparing(MisplacedRows::shardId).thenComparing(MisplacedRows::tenantId)
			.thenComparing(MisplacedRows::table));
		ReferenceDataReport referenceData = referenceData();
		ReconciliationReport report = new ReconciliationReport(started, Instant.now(), version, checked,
				entries.size(), misplaced, missing, unreachable, referenceData);
		this.lastReport = report;
		if (report.isClean()) {
			log.info("Reconciliation at directory version {}: {} tenants on {} shards agree", version, entries.size(),
					checked.size());
		}
		else {
			log.warn("Reconciliation at directory version {}: {} misplaced row groups, {} tenants without rows, {} "
					+ "unreachable shards{}", version, misplaced.size(), missing.size(), unreachable.size(),
					referenceData == null || referenceData.consistent() ? ""
							: "; reference data behind on " + referenceData.behind() + ", unreachable on "
									+ referenceData.unreachable() + ", differing in tables "
									+ referenceData.differing());
		}
		return report;
	}

	/**
	 * @param reference what a run reports of the reference data (after replaying what shards miss), or {@code null}
	 * for nothing
	 * @return this reconciler
	 */
	public Reconciler withReferenceData(@Nullable Supplier<@Nullable ReferenceDataReport> reference) {
		this.reference = reference;
		return this;
	}

	private @Nullable ReferenceDataReport referenceData() {
		Supplier<@Nullable ReferenceDataReport> supplier = this.reference;
		if (supplier == null) {
			return null;
		}
		try {
			return supplier.get();
		}
		catch (RuntimeException ex) {
			log.warn("Reference data not reconciled: {}", ex.getMessage());
			return null;
		}
	}

	/** @return the report of the last completed run, or empty before the first */
	public Optional<ReconciliationReport> lastReport() {
		return Optional.ofNullable(this.lastReport);
	}

	private Map<String, Map<String, Long>> count(Topology.Shard shard) throws SQLException {
		Map<String, Map<String, Long>> result = new LinkedHashMap<>();
		try (Connection c = shard.dataSource().getConnection()) {
			// Counts every tenant's rows: under the maintenance mark, which row-level security lets read them all.
			shard.dialect().beginMaintenance(c);
			for (TenantTable table : this.tables) {
				String name = table.table(); // plain identifiers, checked by TenantTable
				String column = table.tenantColumn();
				Map<String, Long> byTenant = new HashMap<>();
				try (PreparedStatement ps = c.prepareStatement("SELECT " + column + ", COUNT(*) FROM " + name
						+ " GROUP BY " + column); ResultSet rs = ps.executeQuery()) {
					while (rs.next()) {
						byTenant.put(rs.getString(1), rs.getLong(2));
					}
				}
				result.put(table.table(), byTenant);
			}
			c.rollback();
			c.setAutoCommit(true);
		}
		return result;
	}

}
