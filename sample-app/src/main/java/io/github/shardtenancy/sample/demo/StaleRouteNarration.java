package io.github.shardtenancy.sample.demo;

import java.util.List;
import java.util.Map;
import java.util.UUID;

import io.github.shardtenancy.MoveResult;
import io.github.shardtenancy.retry.FenceRejection;

/**
 * The story of one call in the report: a writer's transaction routed with a stale entry, rejected by the source's
 * fence, retried and committed, told step by step from its {@link CallTrace} and the moves of the run. Stateless.
 */
final class StaleRouteNarration {

	private StaleRouteNarration() {
	}

	/**
	 * @param trace a call that was retried after a stale-route rejection and committed, or {@code null}
	 * @param moves the moves of the run
	 * @param ownerOfCommitted the shard each committed order was found on after the run
	 * @return the numbered steps, or {@code null} without a trace
	 */
	static String narrate(CallTrace trace, List<MoveResult> moves, Map<UUID, String> ownerOfCommitted) {
		if (trace == null) {
			return null;
		}
		CallTrace.Failure stale = trace.firstStaleRejection().orElseThrow();
		FenceRejection r = stale.rejection();
		StringBuilder out = new StringBuilder();
		int step = 0;
		out.append(String.format("  %d. A writer bound tenant '%s' and called DemoOrderWriter.placeOrder (outermost "
				+ "@Transactional). The application's router had tenant '%s' cached on shard '%s' with directory "
				+ "version %d, and attempt %d was routed there.%n", ++step, trace.tenantId, r.tenantId(), r.shardId(),
				r.seenVersion(), stale.attempt()));
		MoveResult cause = null;
		synchronized (moves) {
			for (MoveResult m : moves) {
				if (m.tenantId().equals(r.tenantId())
						&& (m.flipVersion() == r.requiredVersion() || m.freezeVersion() == r.requiredVersion())) {
					cause = m;
				}
			}
		}
		if (cause != null && cause.freezeVersion() == r.requiredVersion()) {
			out.append(String.format("  %d. Meanwhile the mover (the other instance, with its own router) had started "
					+ "moving it %s -> %s: it froze the tenant at directory version %d, so the source fence required "
					+ "at least that version (the move flipped at version %d after a freeze window of %d ms). The "
					+ "app's router had not synced the freeze.%n", ++step, cause.sourceShardId(), cause.targetShardId(),
					cause.freezeVersion(), cause.flipVersion(), cause.freezeWindow().toMillis()));
		}
		else if (cause != null) {
			out.append(String.format("  %d. Meanwhile the mover (the other instance, with its own router) had moved "
					+ "it %s -> %s: frozen at version %d, flipped at version %d after a freeze window of %d ms, and "
					+ "the source fence marked MOVED at %d. The app's router had not synced the flip.%n", ++step,
					cause.sourceShardId(), cause.targetShardId(), cause.freezeVersion(), cause.flipVersion(),
					cause.freezeWindow().toMillis(), cause.flipVersion()));
		}
		out.append(String.format("  %d. Shard '%s' fence rejected it: %s, directory version seen %d, required %d "
				+ "(SQLSTATE 40001, surfaced as %s%s).%n", ++step, r.shardId(), r.reason(), r.seenVersion(),
				r.requiredVersion(), stale.surfacedAs(), where(stale.surfacedAs())));
		out.append(String.format("  %d. The retry found the fence rejection in the cause chain and invalidated that one "
				+ "router entry (%s). After the backoff, just before the retry, the cache held "
				+ "%s.%n", ++step, "counted in the router's invalidations",
				trace.cachedBeforeFirstRetry == null ? "(not observed)"
						: trace.cachedBeforeFirstRetry.map(e -> "shard '" + e.shardId() + "' version " + e.version()
								+ " " + e.state() + " (already reloaded from the directory by a lookup or the sync)")
							.orElse("nothing for the tenant (dropped): the next lookup reads the directory")));
		for (CallTrace.Failure later : trace.failures) {
			if (later != stale && later.attempt() > stale.attempt()) {
				out.append(String.format("  %d. Attempt %d was rejected again: %s.%n", ++step, later.attempt(),
						later.rejection() != null ? later.rejection().reason() + " on shard '"
								+ later.rejection().shardId() + "', required version "
								+ later.rejection().requiredVersion() : later.surfacedAs()));
			}
		}
		String entry = trace.cachedAtSuccess == null ? "(entry not observed)"
				: "shard '" + trace.cachedAtSuccess.shardId() + "' with directory version "
						+ trace.cachedAtSuccess.version() + " (" + trace.cachedAtSuccess.state() + ")";
		out.append(String.format("  %d. Attempt %d was routed with the refreshed entry, %s: the whole method ran "
				+ "again with a fresh persistence context and committed order %s.%n", ++step, trace.executions, entry,
				trace.committedId));
		String foundOn = ownerOfCommitted.get(trace.committedId);
		out.append(String.format("  %d. Check after the run: order %s %s.%n", ++step, trace.committedId,
				foundOn != null ? "is on shard '" + foundOn + "', the tenant's owner at the end of the run"
						: "was NOT found on the tenant's owner"));
		return out.toString();
	}

	private static String where(String surfacedAs) {
		return switch (surfacedAs) {
			case "CannotCreateTransactionException" -> ", at transaction begin, before the body ran";
			case "CannotAcquireLockException" -> ", at a statement or the flush";
			case "PessimisticLockException" -> ", at an explicit flush";
			case "JpaSystemException", "TransactionSystemException" -> ", at commit";
			default -> "";
		};
	}

}
