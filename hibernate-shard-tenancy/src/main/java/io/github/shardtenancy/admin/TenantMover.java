package io.github.shardtenancy.admin;

import io.github.shardtenancy.TenantTable;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.StringJoiner;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import io.github.shardtenancy.DirectoryConflictException;
import io.github.shardtenancy.MoveException;
import io.github.shardtenancy.ShardTenancyException;
import io.github.shardtenancy.UnknownTenantException;
import io.github.shardtenancy.internal.directory.Directory;
import io.github.shardtenancy.DirectoryEntry;
import io.github.shardtenancy.TenantState;
import io.github.shardtenancy.internal.fence.FenceState;
import io.github.shardtenancy.internal.fence.ShardFence;
import io.github.shardtenancy.move.MoveInProgressException;
import io.github.shardtenancy.move.OnlineMover;
import io.github.shardtenancy.internal.move.ActiveMoves;
import io.github.shardtenancy.internal.move.TablePlan;
import io.github.shardtenancy.internal.move.TenantRows;
import io.github.shardtenancy.internal.routing.Router;
import io.github.shardtenancy.internal.topology.Topology;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The basic, stop-the-world move of one tenant (freeze, copy, verify, flip, clean; no online copy): the tenant's
 * writes are refused for the whole copy; its neighbours on both shards keep working, and
 * its reads keep being served by the source.
 *
 * <ol>
 * <li><b>freeze</b>: directory entry FROZEN with the target set (epoch and version bumped); then the source fence
 * FROZEN at that version, which waits for the tenant's in-flight writes on the source and refuses later ones;</li>
 * <li><b>copy</b>: the target fence INCOMING (routed work refused), the tenant's rows copied table by table in
 * foreign-key order on a mover connection, replacing any left by an earlier failed attempt;</li>
 * <li><b>verify</b>: row count and an order-independent checksum per table, source against target;</li>
 * <li><b>flip</b>: one directory write: owner = target, ACTIVE, new epoch and version;</li>
 * <li><b>fence</b>: target fence OWNED at the flip version, then source fence MOVED at the flip version;</li>
 * <li><b>clean</b>: the tenant's rows deleted from the source, at once or after a safety period (see the constructor)
 * during which transactions that began on the source before the flip can finish reading.</li>
 * </ol>
 * A failure before the flip undoes the freeze: the entry returns to ACTIVE on the source, the source fence to OWNED,
 * and the rows copied to the target are removed. Writes refused meanwhile were retried by their callers.
 *
 * <p>Thread-safe; moves of different tenants may run at once. Two moves of one tenant are refused by the directory's
 * epoch check ({@link DirectoryConflictException}), and a tenant with an unfinished {@link OnlineMover} move (also
 * one flipped but not cleaned yet) is refused with {@link MoveInProgressException}.
 */
public class TenantMover {

	private static final Logger log = LoggerFactory.getLogger(TenantMover.class);

	private final Directory directory;

	private final Router router;

	private final Topology topology;

	private final List<TenantTable> tables;

	private final String actor;

	private final Duration cleanDelay;

	private final Set<CompletableFuture<Void>> pendingCleanups = ConcurrentHashMap.newKeySet();

	/**
	 * @param directory the directory
	 * @param router the local router, updated at once after the flip
	 * @param topology the shards
	 * @param tables the tenant tables to move, in any order (they are sorted by foreign keys)
	 * @param actor who moves, recorded in the directory history (e.g. {@code mover@host})
	 */
	public TenantMover(Directory directory, Router router, Topology topology, List<TenantTable> tables,
			String actor) {
		this.directory = Objects.requireNonNull(directory, "directory");
		this.router = Objects.requireNonNull(router, "router");
		this.topology = Objects.requireNonNull(topology, "topology");
		this.tables = List.copyOf(tables);
		this.actor = Objects.requireNonNull(actor, "actor");
		this.cleanDelay = Duration.ZERO;
	}

	/**
	 * @param directory the directory
	 * @param router the local router, updated at once after the flip
	 * @param topology the shards
	 * @param tables the tenant tables to move, in any order (they are sorted by foreign keys)
	 * @param actor who moves, recorded in the directory history (e.g. {@code mover@host})
	 * @param cleanDelay how long after the flip the source rows are deleted (in the background): the safety period
	 * that lets transactions which began on the source before the flip finish reading; {@link Duration#ZERO} deletes
	 * them before {@link #move} returns
	 */
	public TenantMover(Directory directory, Router router, Topology topology, List<TenantTable> tables,
			String actor, Duration cleanDelay) {
		this.directory = Objects.requireNonNull(directory, "directory");
		this.router = Objects.requireNonNull(router, "router");
		this.topology = Objects.requireNonNull(topology, "topology");
		this.tables = List.copyOf(tables);
		this.actor = Objects.requireNonNull(actor, "actor");
		this.cleanDelay = Objects.requireNonNull(cleanDelay, "cleanDelay");
	}

	/**
	 * Waits until every cleanup scheduled by earlier moves has deleted its source rows.
	 * @param timeout the longest wait
	 * @return whether all finished in time (a failed cleanup counts as finished and was logged)
	 * @throws InterruptedException if interrupted while waiting
	 */
	public boolean awaitCleanups(Duration timeout) throws InterruptedException {
		long deadline = System.nanoTime() + timeout.toNanos();
		for (CompletableFuture<Void> cleanup : List.copyOf(this.pendingCleanups)) {
			try {
				cleanup.get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
			}
			catch (ExecutionException ex) {
				// logged where it failed
			}
			catch (TimeoutException ex) {
				return false;
			}
		}
		return true;
	}

	/**
	 * Moves a tenant to another shard.
	 * @param tenantId the tenant
	 * @param targetShardId the new owner
	 * @return what was done
	 * @throws UnknownTenantException if the directory has no entry for the tenant
	 * @throws MoveInProgressException if the tenant has an unfinished online move ({@link OnlineMover}), also one
	 * that has flipped but whose source is not cleaned yet: the move log in the directory database is checked first,
	 * and every directory write of either mover is conditional on the entry's epoch, so no move can start between
	 * the check and this move's freeze
	 * @throws MoveException if the tenant is not ACTIVE, the target is its owner or unknown, a table lacks the tenant
	 * column, or any step before the flip failed (the freeze is then undone)
	 * @throws DirectoryConflictException if another move changed the entry meanwhile
	 */
	public MoveResult move(String tenantId, String targetShardId) {
		long started = System.nanoTime();
		DirectoryEntry entry = this.directory.find(tenantId)
			.orElseThrow(() -> new UnknownTenantException(tenantId, this.router.version()));
		String source = entry.shardId();
		Optional<ActiveMoves.ActiveMove> online = ActiveMoves.find(this.directory.dataSource(), tenantId);
		if (online.isPresent()) {
			ActiveMoves.ActiveMove active = online.get();
			throw new MoveInProgressException("Tenant '" + tenantId + "' (" + entry.state() + " on shard '" + source
					+ "', directory version " + entry.version() + ") has an unfinished online move "
					+ active.moveId() + " from '" + active.sourceShardId() + "' to '" + active.targetShardId()
					+ "' (step " + active.step() + "); resume, clean or abort it before moving the tenant again",
					tenantId, source, entry.version(), active.moveId());
		}
		if (entry.state() != TenantState.ACTIVE) {
			throw new MoveException("Tenant '" + tenantId + "' is " + entry.state() + " on shard '" + source
					+ "' (directory version " + entry.version() + "); only an ACTIVE tenant can be moved", tenantId,
					source, entry.version(), null);
		}
		if (source.equals(targetShardId)) {
			throw new MoveException("Tenant '" + tenantId + "' already lives on shard '" + targetShardId + "'",
					tenantId, source, entry.version(), null);
		}
		Topology.Shard from = this.topology.shard(source);
		Topology.Shard to = this.topology.shard(targetShardId);
		List<TablePlan> ordered = plan(from, tenantId);

		DirectoryEntry frozen = this.directory.update(tenantId, entry.epoch(), source, TenantState.FROZEN,
				targetShardId, this.actor);
		this.router.apply(frozen);
		long frozenAt = System.nanoTime();
		Map<String, Long> copied;
		try {
			ShardFence.set(from.dataSource(), source, tenantId, FenceState.FROZEN, frozen.version());
			ShardFence.set(to.dataSource(), targetShardId, tenantId, FenceState.INCOMING, frozen.version());
			copied = copy(tenantId, from, to, ordered);
			verify(tenantId, from, to, ordered);
		}
		catch (RuntimeException ex) {
			undoFreeze(tenantId, frozen, from, to, ordered, ex);
			throw (ex instanceof ShardTenancyException) ? ex
					: new MoveException("Move of tenant '" + tenantId + "' from '" + source + "' to '" + targetShardId
							+ "' failed and was undone: " + ex.getMessage(), tenantId, source, frozen.version(), ex);
		}
		DirectoryEntry flipped = this.directory.update(tenantId, frozen.epoch(), targetShardId, TenantState.ACTIVE,
				null, this.actor);
		long flippedAt = System.nanoTime();
		ShardFence.set(to.dataSource(), targetShardId, tenantId, FenceState.OWNED, flipped.version());
		ShardFence.set(from.dataSource(), source, tenantId, FenceState.MOVED, flipped.version());
		this.router.apply(flipped);
		this.router.observer().moveFlipped("basic", source, targetShardId, flippedAt - started, flippedAt - frozenAt);
		clean(tenantId, from, ordered, flipped.version());
		MoveResult result = new MoveResult(tenantId, source, targetShardId, frozen.version(), flipped.version(),
				copied, Duration.ofNanos(flippedAt - frozenAt), Duration.ofNanos(System.nanoTime() - started));
		log.info("Moved tenant '{}' from '{}' to '{}': {} rows, freeze window {} ms, directory version {}", tenantId,
				source, targetShardId, result.totalRowsCopied(), result.freezeWindow().toMillis(), flipped.version());
		return result;
	}

	private void clean(String tenantId, Topology.Shard from, List<TablePlan> ordered, long flipVersion) {
		if (this.cleanDelay.isZero()) {
			deleteRows(tenantId, from, ordered, flipVersion);
			return;
		}
		CompletableFuture<Void> cleanup = CompletableFuture.runAsync(
				() -> deleteRows(tenantId, from, ordered, flipVersion),
				CompletableFuture.delayedExecutor(this.cleanDelay.toMillis(),
						TimeUnit.MILLISECONDS));
		this.pendingCleanups.add(cleanup);
		cleanup.whenComplete((done, failure) -> {
			this.pendingCleanups.remove(cleanup);
			if (failure != null) {
				log.error("Cleanup of tenant '{}' on shard '{}' failed; its rows stay there (the fence hides them)",
						tenantId, from.id(), failure);
			}
		});
	}

	private void undoFreeze(String tenantId, DirectoryEntry frozen, Topology.Shard from, Topology.Shard to,
			List<TablePlan> ordered, RuntimeException cause) {
		try {
			deleteRows(tenantId, to, ordered, null);
			DirectoryEntry restored = this.directory.update(tenantId, frozen.epoch(), frozen.shardId(),
					TenantState.ACTIVE, null, this.actor);
			ShardFence.set(to.dataSource(), to.id(), tenantId, FenceState.MOVED, restored.version());
			ShardFence.set(from.dataSource(), from.id(), tenantId, FenceState.OWNED, restored.version());
			this.router.apply(restored);
		}
		catch (RuntimeException undo) {
			cause.addSuppressed(undo);
			log.error("Could not undo the freeze of tenant '{}'; it stays FROZEN until moved again", tenantId, undo);
		}
	}

	private Map<String, Long> copy(String tenantId, Topology.Shard from, Topology.Shard to,
			List<TablePlan> ordered) {
		Map<String, Long> copied = new LinkedHashMap<>();
		try (Connection source = from.dataSource().getConnection();
				Connection target = to.dataSource().getConnection()) {
			to.dialect().beginMover(target, tenantId);
			// The source is read under the maintenance mark, which row-level security lets read the tenant's rows.
			from.dialect().beginMaintenance(source);
			try {
				target.setAutoCommit(false);
				for (TablePlan table : reversed(ordered)) {
					delete(target, table, tenantId);
				}
				for (TablePlan table : ordered) {
					copied.put(table.sqlName(), copyTable(source, target, table, tenantId));
				}
				target.commit();
			}
			catch (SQLException | RuntimeException ex) {
				target.rollback();
				throw ex;
			}
			finally {
				to.dialect().end(target);
				target.setAutoCommit(true);
				source.rollback();
				source.setAutoCommit(true);
			}
		}
		catch (SQLException ex) {
			throw new MoveException("Copy of tenant '" + tenantId + "' from '" + from.id() + "' to '" + to.id()
					+ "' failed: " + ex.getMessage(), tenantId, to.id(), -1, ex);
		}
		return copied;
	}

	private static long copyTable(Connection source, Connection target, TablePlan table, String tenantId)
			throws SQLException {
		long rows = 0;
		try (PreparedStatement select = source
			.prepareStatement("SELECT * FROM " + table.sqlName() + " WHERE " + table.tenantColumn() + " = ?")) {
			select.setString(1, tenantId);
			select.setFetchSize(500);
			try (ResultSet rs = select.executeQuery()) {
				ResultSetMetaData meta = rs.getMetaData();
				int columns = meta.getColumnCount();
				StringJoiner names = new StringJoiner(", ");
				StringJoiner marks = new StringJoiner(", ");
				for (int i = 1; i <= columns; i++) {
					names.add(meta.getColumnName(i));
					marks.add("?");
				}
				try (PreparedStatement insert = target
					.prepareStatement("INSERT INTO " + table.sqlName() + " (" + names + ") VALUES (" + marks + ")")) {
					while (rs.next()) {
						for (int i = 1; i <= columns; i++) {
							insert.setObject(i, rs.getObject(i));
						}
						insert.addBatch();
						if (++rows % 500 == 0) {
							insert.executeBatch();
						}
					}
					insert.executeBatch();
				}
			}
		}
		return rows;
	}

	private void verify(String tenantId, Topology.Shard from, Topology.Shard to, List<TablePlan> ordered) {
		for (TablePlan table : ordered) {
			long[] source = countAndChecksum(from, table, tenantId);
			long[] target = countAndChecksum(to, table, tenantId);
			if (source[0] != target[0] || source[1] != target[1]) {
				throw new MoveException("Verification of tenant '" + tenantId + "' failed for table " + table.sqlName()
						+ ": source '" + from.id() + "' has " + source[0] + " rows (checksum " + source[1]
						+ "), target '" + to.id() + "' has " + target[0] + " rows (checksum " + target[1] + ")",
						tenantId, to.id(), -1, null);
			}
		}
	}

	/**
	 * Counts a tenant's rows in one table and sums a hash of each row's values (the same check the online mover
	 * verifies with): equal on both sides means the same multiset of rows, whatever order the databases return them in.
	 * @return {count, checksum}
	 */
	static long[] countAndChecksum(Topology.Shard shard, TenantTable table, String tenantId) {
		try (Connection c = shard.dataSource().getConnection()) {
			return countAndChecksum(shard, TablePlan.plan(c, shard.id(), tenantId, List.of(table)).get(0), tenantId);
		}
		catch (SQLException ex) {
			throw new MoveException("Cannot read the schema of shard '" + shard.id() + "': " + ex.getMessage(),
					tenantId, shard.id(), -1, ex);
		}
	}

	private static long[] countAndChecksum(Topology.Shard shard, TablePlan table, String tenantId) {
		try {
			return TenantRows.countAndChecksum(shard, table, tenantId);
		}
		catch (SQLException ex) {
			throw new MoveException("Cannot read table " + table.sqlName() + " of tenant '" + tenantId
					+ "' on shard '" + shard.id() + "': " + ex.getMessage(), tenantId, shard.id(), -1, ex);
		}
	}

	/**
	 * Deletes a tenant's rows from a shard in one transaction. With {@code movedAtVersion}, only if the shard's fence
	 * still says the tenant moved away at exactly that version: the fence row is locked first, so a later move of the
	 * tenant back to this shard (which sets the fence to INCOMING, then OWNED) can neither be missed nor raced by a
	 * delayed clean-up of an earlier move.
	 */
	private void deleteRows(String tenantId, Topology.Shard shard, List<TablePlan> ordered,
			Long movedAtVersion) {
		try (Connection c = shard.dataSource().getConnection()) {
			shard.dialect().beginMover(c, tenantId);
			try {
				c.setAutoCommit(false);
				if (movedAtVersion != null && !stillMovedAway(c, tenantId, movedAtVersion)) {
					log.info("Not cleaning tenant '{}' on shard '{}': its fence changed after the move at directory "
							+ "version {} (the tenant came back)", tenantId, shard.id(), movedAtVersion);
					c.rollback();
					return;
				}
				for (TablePlan table : reversed(ordered)) {
					delete(c, table, tenantId);
				}
				c.commit();
			}
			catch (SQLException ex) {
				c.rollback();
				throw ex;
			}
			finally {
				shard.dialect().end(c);
				c.setAutoCommit(true);
			}
		}
		catch (SQLException ex) {
			throw new MoveException("Cannot delete the rows of tenant '" + tenantId + "' on shard '" + shard.id()
					+ "': " + ex.getMessage(), tenantId, shard.id(), -1, ex);
		}
	}

	private static boolean stillMovedAway(Connection c, String tenantId, long movedAtVersion) throws SQLException {
		try (PreparedStatement ps = c
			.prepareStatement("SELECT state, min_version FROM shard_fence WHERE tenant_id = ? FOR UPDATE")) {
			ps.setString(1, tenantId);
			try (ResultSet rs = ps.executeQuery()) {
				return rs.next() && FenceState.MOVED.name().equals(rs.getString(1)) && rs.getLong(2) == movedAtVersion;
			}
		}
	}

	private static List<TablePlan> reversed(List<TablePlan> tables) {
		List<TablePlan> copy = new ArrayList<>(tables);
		java.util.Collections.reverse(copy);
		return copy;
	}

	private static void delete(Connection c, TablePlan table, String tenantId) throws SQLException {
		try (PreparedStatement ps = c
			.prepareStatement("DELETE FROM " + table.sqlName() + " WHERE " + table.tenantColumn() + " = ?")) {
			ps.setString(1, tenantId);
			ps.executeUpdate();
		}
	}

	/**
	 * Checks every table on the source shard (it exists, has its tenant column and a primary key; the move refuses to
	 * start naming the first that does not) and orders them so that a table comes after the tables its foreign keys
	 * point to.
	 */
	private List<TablePlan> plan(Topology.Shard shard, String tenantId) {
		try (Connection c = shard.dataSource().getConnection()) {
			return TablePlan.plan(c, shard.id(), tenantId, this.tables);
		}
		catch (SQLException ex) {
			throw new MoveException("Cannot read the schema of shard '" + shard.id() + "': " + ex.getMessage(),
					tenantId, shard.id(), -1, ex);
		}
	}

}
