package io.github.shardtenancy;

import java.util.List;
import java.util.Optional;

/**
 * Moves one tenant to another shard, by one protocol whose every step is recorded in the move log in the directory
 * database, so that a move interrupted anywhere (a crash, a failure) can be resumed or aborted, by this or any other
 * instance. With {@link MoveSettings#capture()} on (online) the tenant's writes are refused only from the freeze to
 * the flip; with it off (stop-the-world) from the freeze, which comes first, to the flip. Either way reads are served
 * throughout, the tenant's neighbours on both shards are never touched, and nothing committed is lost. A tenant has at
 * most one unfinished move (also one flipped whose source is not cleaned yet), in all processes.
 *
 * <p>Implementations are thread-safe: moves of different tenants may run at once. Every argument must be non-null,
 * otherwise {@link NullPointerException} is thrown. Every method may also throw
 * {@link DirectoryUnavailableException} if the directory (and so the move log) cannot be read or written.
 */
public interface TenantMover {

	/**
	 * Reads, on the calling thread, everything that would make a move of the tenant to the shard be refused or fail,
	 * without changing anything: the tenant's state and unfinished move; on both shards every tenant table, its tenant
	 * column and primary key; the columns of each table on the source and the target (a column missing on the target,
	 * a different type, a column only the target has that is {@code NOT NULL} without a default); the application's
	 * triggers the move's writes would fire; and, reading the tenant's keys on the source and looking them up on the
	 * target, rows of other tenants with the same primary key or a unique key of the target (the copy would fail on
	 * them). It also counts the rows the move would copy and their bytes. Every move runs the same checks, except the
	 * counts, before it records anything, and is refused ({@link MoveRefusedException}) if one finds a problem.
	 * <p>It reads every key of the tenant on the source and looks them up on the target, in batches: for a large
	 * tenant it costs about a scan of the tenant's rows on each side.
	 * @param tenantId the tenant
	 * @param targetShardId the shard it would move to, in the topology
	 * @return the problems found (empty if none) and the rows and bytes to copy
	 * @throws InvalidTenantIdException if the tenant id breaks the tenant id rule
	 * @throws UnknownTenantException if the directory has no entry for the tenant
	 * @throws UnknownShardException if either shard is not in the topology
	 * @throws MoveException if a shard cannot be reached or its schema read (the message names the shard)
	 */
	MoveCheck check(String tenantId, String targetShardId);

	/**
	 * Starts a move and returns once it is recorded (step {@link MoveStep#PLANNED}); the steps then run on the
	 * mover's executor. A failure of a step is recorded in the move log ({@link MoveStatus#error()}): before the flip
	 * the move is aborted ({@link MoveStep#ABORTED}), after it left for {@link #resume(String)}. Follow the move with
	 * {@link #status(String)}.
	 * @param tenantId the tenant, ACTIVE
	 * @param targetShardId the new owner, in the topology, not the tenant's shard
	 * @param settings how to move
	 * @return the move id
	 * @throws InvalidTenantIdException if the tenant id breaks the tenant id rule
	 * @throws UnknownTenantException if the directory has no entry for the tenant
	 * @throws UnknownShardException if either shard is not in the topology
	 * @throws MoveInProgressException if the tenant has an unfinished move
	 * @throws MoveRefusedException before anything is recorded, if {@link #check} finds a problem other than the
	 * tenant's state: the move's writes on the source or the target would fire triggers of the application on tenant
	 * tables ({@code docs/moves.md}, "Triggers"), a table's columns differ between the shards, or a row of another
	 * tenant on the target has one of the tenant's keys ({@link MoveRefusedException#reasons()} names each)
	 * @throws MoveException if the tenant is not ACTIVE, the target is its owner, a tenant table is missing or lacks
	 * its tenant column or primary key (named in the message), or the executor refused the move (it is then recorded
	 * as aborted)
	 */
	String move(String tenantId, String targetShardId, MoveSettings settings);

	/**
	 * Moves a tenant on the calling thread and returns when the move is {@link MoveStep#DONE}, or
	 * {@link MoveStep#FLIPPED} if {@link MoveSettings#cleanDelay()} is not zero (the source is then cleaned on the
	 * mover's executor once the delay has passed).
	 * @param tenantId the tenant, ACTIVE
	 * @param targetShardId the new owner, in the topology, not the tenant's shard
	 * @param settings how to move
	 * @return what the move did
	 * @throws InvalidTenantIdException if the tenant id breaks the tenant id rule
	 * @throws UnknownTenantException if the directory has no entry for the tenant
	 * @throws UnknownShardException if either shard is not in the topology
	 * @throws MoveInProgressException if the tenant has an unfinished move
	 * @throws MoveRefusedException before anything is recorded, if {@link #check} finds a problem other than the
	 * tenant's state: the move's writes on the source or the target would fire triggers of the application on tenant
	 * tables ({@code docs/moves.md}, "Triggers"), a table's columns differ between the shards, or a row of another
	 * tenant on the target has one of the tenant's keys ({@link MoveRefusedException#reasons()} names each)
	 * @throws MoveException if the tenant is not ACTIVE, the target is its owner, a tenant table is missing or lacks
	 * its tenant column or primary key (named in the message), the source shard has no change capture (online), or a
	 * step failed: the move was then aborted before the flip (the tenant is ACTIVE on its source), or left for
	 * {@link #resume(String)} after it or if the abort failed too
	 * @throws DirectoryConflictException if the entry changed concurrently outside the move
	 */
	MoveResult moveAndWait(String tenantId, String targetShardId, MoveSettings settings);

	/**
	 * Continues a move from its last recorded step, on the calling thread: after a crash of the mover that ran it,
	 * after a failure, or to clean the source once the clean delay has passed. A finished move is returned as it is.
	 * @param moveId the move
	 * @return the move's status afterwards: DONE, or FLIPPED while the clean delay (or the soak) runs; for a revert
	 * REVERTED, or REVERT_FLIPPED while the clean delay runs
	 * @throws MoveException if the move is unknown, or a step failed (see {@link #moveAndWait})
	 * @throws MoveInProgressException if another mover holds the move and its heartbeat is within the lease
	 */
	MoveStatus resume(String moveId);

	/**
	 * Cleans the source of a flipped move now (the target of a reverted one, {@link MoveStep#REVERT_FLIPPED}), whatever
	 * its clean delay, on the calling thread. For a move in its soak
	 * ({@link MoveSettings#soak()}) this finalises it: the capture on the target stops, the source rows are deleted,
	 * and the move can no longer be reverted.
	 * @param moveId the move
	 * @return the status afterwards (DONE, or REVERTED after a revert)
	 * @throws MoveException if the move is unknown, not flipped yet, or aborted, or the clean failed
	 * @throws MoveInProgressException if another mover holds the move and its heartbeat is within the lease
	 */
	MoveStatus clean(String moveId);

	/**
	 * Aborts a move before its flip, on the calling thread: the target's copy is removed, the entry is ACTIVE on the
	 * source again (new epoch and version), the source fence OWNED and the target fence MOVED at that version. Writes
	 * refused meanwhile were retried by their callers; nothing committed is lost. An aborted move is returned as it is.
	 * @param moveId the move
	 * @return the status afterwards (ABORTED)
	 * @throws MoveException if the move is unknown or already flipped, or a step of the abort failed (it can be
	 * repeated)
	 * @throws MoveInProgressException if another mover holds the move and its heartbeat is within the lease
	 */
	MoveStatus abort(String moveId);

	/**
	 * @param moveId the move
	 * @return its status as recorded now
	 * @throws MoveException if the move is unknown
	 */
	MoveStatus status(String moveId);

	/**
	 * @param tenantId the tenant
	 * @return its unfinished move (also one flipped whose source is not cleaned yet), or empty
	 */
	Optional<MoveStatus> findActive(String tenantId);

	/**
	 * Reverts a move in its soak ({@link MoveSettings#soak()}; {@link MoveStatus#isRevertable()}), on the calling
	 * thread: the tenant returns to its source with every write it committed on the target. The revert runs the
	 * move's own steps from the freeze with source and target swapped, each recorded in the move log
	 * ({@link MoveStep#REVERTING} to {@link MoveStep#REVERTED}): the tenant FROZEN on the target, the last changes
	 * logged there applied to the source, source and target verified equal (count and checksum of every table), one
	 * directory write naming the source again, then the target's rows deleted. The tenant's writes are refused from
	 * the freeze to the flip, as in the forward move, and retried by their callers. Interrupted anywhere (a crash, a
	 * failure), the revert is continued by {@link #resume(String)} or by calling this again; once requested it is
	 * never undone, and until it flips the tenant stays FROZEN (reads served, writes refused). The target's rows are
	 * deleted after {@link MoveSettings#cleanDelay()}, as the source's are after a forward flip (on the mover's
	 * executor, or by {@link #resume(String)} or {@link #clean(String)}). A reverted move is returned as it is.
	 * @param moveId the move
	 * @return the status afterwards: {@link MoveStep#REVERTED}, or {@link MoveStep#REVERT_FLIPPED} while the clean
	 * delay runs
	 * @throws MoveException if the move is unknown; if it cannot be reverted (not flipped yet: abort it instead; no
	 * soak; finalised; aborted), the message says which; or if a step failed (the revert is then left for
	 * {@link #resume(String)})
	 * @throws MoveInProgressException if another mover holds the move and its heartbeat is within the lease
	 */
	MoveStatus revert(String moveId);

	/**
	 * @return the moves in their soak ({@link MoveStatus#isRevertable()}: FLIPPED with a soak, not finalised), oldest
	 * first; resuming one schedules its reverse catch-up and its finalisation on this mover, which is how they
	 * restart after the process that flipped them stopped (in Spring Boot the lifecycle does it when
	 * {@code shard-tenancy.move.soak} is set)
	 */
	List<MoveStatus> findSoaking();

}
