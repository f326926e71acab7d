package io.github.shardtenancy.sample.demo;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;

import io.github.shardtenancy.MoveResult;
import io.github.shardtenancy.RouterStats;

/**
 * What one demo run did and found, and whether it passed. Immutable.
 *
 * @param elapsed how long writers and mover ran
 * @param writers writer threads
 * @param shards the shard ids
 * @param attempted writer calls (transactions attempted, each possibly retried)
 * @param committed writer calls that returned an order id
 * @param typedFailures writer calls that failed with a library exception, by exception type
 * @param untypedFailures writer calls that failed with any other exception
 * @param untypedExamples the first few of those, for the report
 * @param bodyRuns runs of the transactional method's body over all calls
 * @param executions attempts seen by the retry listener (first attempts included)
 * @param retries retries seen by the retry listener
 * @param rejectionsByReason fence rejections seen by the retry listener, by reason
 * @param serializationFailures genuine serialization failures (40001 without the fence marker) seen by the listener
 * @param otherFailures other failed attempts seen by the listener
 * @param staleRetriedToSuccess writer calls rejected at least once for a stale route (MOVED, STALE, NOT_OWNED) that
 * then committed on a retry
 * @param attemptsHistogram attempts per writer call to the number of such calls
 * @param moves the moves done, in order
 * @param moveFailures moves that failed with a library exception (the mover carried on)
 * @param moverUntypedFailures moves that failed with any other exception
 * @param routerStats the application router's counters at the end
 * @param tenants the per-tenant check of the shards against the committed ids
 * @param narration one rejection told step by step, or {@code null} if there was none
 * @param moveSteps per move, in the order of {@code moves}: the online mover's steps and the time each took (for
 * example {@code MARKED 4 ms, COPIED 9 ms (rows=120 ...), ...}); possibly shorter than {@code moves}
 */
public record DemoReport(Duration elapsed, int writers, List<String> shards, long attempted, long committed,
		Map<String, Long> typedFailures, long untypedFailures, List<String> untypedExamples, long bodyRuns,
		long executions, long retries, Map<String, Long> rejectionsByReason, long serializationFailures,
		long otherFailures, long staleRetriedToSuccess, SortedMap<Integer, Long> attemptsHistogram,
		List<MoveResult> moves, List<String> moveFailures, long moverUntypedFailures, RouterStats routerStats,
		List<TenantCheck> tenants, String narration, List<String> moveSteps) {

	/**
	 * The shards' content for one tenant, read with plain JDBC on every shard after the run.
	 *
	 * @param tenantId the tenant
	 * @param owner its owner shard in the directory after the run
	 * @param ownerState the entry's state after the run (ACTIVE expected)
	 * @param committedIds order ids the writers saw committed
	 * @param rowsOnOwner order rows of the tenant on the owner
	 * @param customersOnOwner customer rows of the tenant on the owner (the seed made one; the demo adds none)
	 * @param lost committed ids missing on the owner
	 * @param duplicated order ids present more than once over all shards
	 * @param misplaced rows of the tenant (customers, orders, lines) on other shards
	 * @param unexpected order rows on the owner whose id no writer saw committed (not counting seeded data: the
	 * seed creates no orders)
	 * @param ordersWithoutOneLine orders on the owner that do not have exactly one line there
	 */
	public record TenantCheck(String tenantId, String owner, String ownerState, long committedIds, long rowsOnOwner,
			long customersOnOwner, long lost, long duplicated, long misplaced, long unexpected, long ordersWithoutOneLine) {
	}

	/** @return fence rejections of stale routes (MOVED, STALE, NOT_OWNED) */
	public long staleRejections() {
		return this.rejectionsByReason.entrySet()
			.stream()
			.filter(e -> OrdersDemo.STALE_REASONS.contains(e.getKey()))
			.mapToLong(Map.Entry::getValue)
			.sum();
	}

	/** @return committed ids missing on their tenant's owner, over all tenants */
	public long lost() {
		return this.tenants.stream().mapToLong(TenantCheck::lost).sum();
	}

	/** @return ids present more than once over all shards, over all tenants */
	public long duplicated() {
		return this.tenants.stream().mapToLong(TenantCheck::duplicated).sum();
	}

	/** @return rows of a tenant on a shard that does not own it, over all tenants */
	public long misplaced() {
		return this.tenants.stream().mapToLong(TenantCheck::misplaced).sum();
	}

	/** @return rows no writer saw committed, over all tenants */
	public long unexpected() {
		return this.tenants.stream().mapToLong(TenantCheck::unexpected).sum();
	}

	/** @return orders without exactly one line on the owner, over all tenants */
	public long ordersWithoutOneLine() {
		return this.tenants.stream().mapToLong(TenantCheck::ordersWithoutOneLine).sum();
	}

	/** @return why the run failed; empty when it passed */
	public List<String> problems() {
		List<String> problems = new ArrayList<>();
		if (lost() > 0) {
			problems.add(lost() + " committed orders are missing on their owner shard");
		}
		if (duplicated() > 0) {
			problems.add(duplicated() + " order ids appear more than once over the shards");
		}
		if (misplaced() > 0) {
			problems.add(misplaced() + " rows lie on a shard that does not own their tenant");
		}
		if (unexpected() > 0) {
			problems.add(unexpected() + " order rows exist that no writer saw committed");
		}
		if (ordersWithoutOneLine() > 0) {
			problems.add(ordersWithoutOneLine() + " orders do not have exactly one line on their owner");
		}
		if (this.staleRetriedToSuccess < 1) {
			problems.add("no stale-route rejection was retried to a commit (the retry listener saw "
					+ this.executions + " attempts)");
		}
		if (this.untypedFailures > 0) {
			problems.add(this.untypedFailures + " writer calls failed with an untyped error");
		}
		if (this.moverUntypedFailures > 0) {
			problems.add(this.moverUntypedFailures + " moves failed with an untyped error");
		}
		this.tenants.stream()
			.filter(t -> t.customersOnOwner() != 1)
			.forEach(t -> problems.add("tenant '" + t.tenantId() + "' has " + t.customersOnOwner()
					+ " customers on its owner, 1 expected"));
		this.tenants.stream()
			.filter(t -> !"ACTIVE".equals(t.ownerState()))
			.forEach(t -> problems.add("tenant '" + t.tenantId() + "' ended " + t.ownerState() + ", not ACTIVE"));
		return problems;
	}

	/** @return whether every check held */
	public boolean passed() {
		return problems().isEmpty();
	}

	/** @return the report as text, for the console */
	public String render() {
		StringBuilder out = new StringBuilder();
		out.append("\n==================== shard-tenancy demo report ====================\n");
		out.append(String.format("Ran %.1f s: %d writers over %d tenants on shards %s, one mover (own router).%n",
				this.elapsed.toMillis() / 1000.0, this.writers, this.tenants.size(), this.shards));
		out.append("\nTransactions (writer calls)\n");
		out.append(String.format("  attempted %d, committed %d, failed typed %d %s, failed untyped %d%n", this.attempted,
				this.committed, this.typedFailures.values().stream().mapToLong(Long::longValue).sum(),
				this.typedFailures, this.untypedFailures));
		this.untypedExamples.forEach(e -> out.append("    untyped: ").append(e).append('\n'));
		out.append(String.format("  attempts seen by the RetryListener %d (retries %d); method body runs %d%n",
				this.executions, this.retries, this.bodyRuns));
		out.append("  (a rejection at transaction begin fails before the body runs, so body runs <= attempts)\n");
		out.append(String.format("  fence rejections by reason %s: stale routes %d, retried to a commit: %d calls%n",
				this.rejectionsByReason, staleRejections(), this.staleRetriedToSuccess));
		out.append(String.format("  genuine serialization failures %d, other failed attempts %d%n",
				this.serializationFailures, this.otherFailures));
		out.append(String.format("  app router: %d invalidations, %d syncs with changes, version %d%n",
				this.routerStats.invalidations(), this.routerStats.syncs(), this.routerStats.version()));
		out.append("  attempts per transaction:");
		this.attemptsHistogram.forEach((attempts, calls) -> out.append(String.format("  %d x%d", attempts, calls)));
		out.append('\n');
		out.append(String.format("%nMoves: %d done, %d failed%s%n", this.moves.size(), this.moveFailures.size(),
				freezeSummary()));
		for (int i = 0; i < this.moves.size(); i++) {
			MoveResult m = this.moves.get(i);
			out.append(String.format("  #%-3d %-10s %s -> %s  versions %d..%d  rows %-5d freeze %d ms%n", i + 1,
					m.tenantId(), m.sourceShardId(), m.targetShardId(), m.freezeVersion(), m.flipVersion(),
					m.totalRowsCopied(), m.freezeWindow().toMillis()));
			if (i < this.moveSteps.size()) {
				out.append("       steps: ").append(this.moveSteps.get(i)).append('\n');
			}
		}
		this.moveFailures.forEach(f -> out.append("  failed: ").append(f).append('\n'));
		out.append("\nPer tenant (orders read on every shard with plain JDBC)\n");
		out.append("  (committed = order ids the writers saw committed; on owner = order rows on the owner shard;\n"
				+ "   misplaced = rows of any tenant table on another shard; no-line = orders without exactly one line)\n");
		out.append(String.format("  %-10s %-8s %9s %9s %9s %5s %5s %9s %10s %8s%n", "tenant", "owner", "committed",
				"on owner", "customers", "lost", "dup", "misplaced", "unexpected", "no-line"));
		for (TenantCheck t : this.tenants) {
			out.append(String.format("  %-10s %-8s %9d %9d %9d %5d %5d %9d %10d %8d%n", t.tenantId(), t.owner(),
					t.committedIds(), t.rowsOnOwner(), t.customersOnOwner(), t.lost(), t.duplicated(), t.misplaced(),
					t.unexpected(), t.ordersWithoutOneLine()));
		}
		out.append(String.format("  %-10s %-8s %9d %9d %9d %5d %5d %9d %10d %8d%n", "total", "",
				this.tenants.stream().mapToLong(TenantCheck::committedIds).sum(),
				this.tenants.stream().mapToLong(TenantCheck::rowsOnOwner).sum(),
				this.tenants.stream().mapToLong(TenantCheck::customersOnOwner).sum(), lost(), duplicated(),
				misplaced(), unexpected(), ordersWithoutOneLine()));
		out.append("\nOne rejection, step by step\n");
		out.append(this.narration != null ? this.narration : "  (no stale-route rejection was retried to a commit)\n");
		List<String> problems = problems();
		out.append(problems.isEmpty() ? "\nRESULT: PASSED (lost = duplicated = misplaced = 0, stale rejections retried)\n"
				: "\nRESULT: FAILED\n");
		problems.forEach(p -> out.append("  - ").append(p).append('\n'));
		out.append("====================================================================\n");
		return out.toString();
	}

	private String freezeSummary() {
		if (this.moves.isEmpty()) {
			return "";
		}
		List<Long> windows = this.moves.stream().map(m -> m.freezeWindow().toMillis()).sorted().toList();
		return String.format("; freeze window min %d ms, median %d ms, max %d ms", windows.get(0),
				windows.get(windows.size() / 2), windows.get(windows.size() - 1));
	}

}
