/**
 * The move protocol: one tenant moved to another shard by {@link io.github.shardtenancy.internal.move.Mover}, one
 * step class per step, each recorded in the move log ({@code shard_move}) and idempotent, so that a move is resumed or
 * aborted from its last recorded step after a crash anywhere. Online (capture on): mark, copy, catch up, freeze, final
 * catch-up, verify, flip, clean; stop-the-world (capture off): freeze, copy, verify, flip, clean.
 *
 * <p>Catch-up: while the tenant is copied, a row trigger on each moved table of the source appends the key of every
 * row the tenant writes to a change log on the source ({@code shard_change}) in the writing transaction. Capture is
 * switched on in a transaction that also writes the tenant's fence row, whose lock every fenced write holds, so each
 * write either committed before the copy's snapshot or is logged; the freeze waits for writes in flight the same way.
 * A round re-reads each logged key in one snapshot of the source and applies the row's current state to the target
 * (upsert, or delete if gone), then deletes the entries it applied: re-applying is harmless, so the log need only be
 * complete, not ordered. Deletes run children first and upserts parents first; a write the target refuses with an
 * integrity violation is retried one row at a time until nothing more applies.
 *
 * <p>Copy reads one snapshot of the source, parents first, committing on the target every batch; an interrupted copy
 * starts over. The last catch-up round before the freeze verifies the whole copy (count and checksum per table); inside
 * the freeze only the counts and the rows the final catch-up changed are compared, so the freeze costs in proportion
 * to the final lag. A move without capture, or resumed after the freeze, verifies every row.
 *
 * <p>A tenant has at most one unfinished move (a unique index of the move log), every directory write is conditional
 * on the entry's epoch, and a move's owner keeps a heartbeat: another mover takes it over only after the lease.
 * Snapshot reads follow PostgreSQL's repeatable read isolation:
 * <a href="https://www.postgresql.org/docs/current/transaction-iso.html">transaction isolation</a>.
 */
@NullMarked
package io.github.shardtenancy.internal.move;

import org.jspecify.annotations.NullMarked;
