package io.github.shardtenancy;

import java.util.List;

/**
 * A move refused before it started: nothing was recorded as marked, no fence or change capture was changed and
 * nothing was copied; the tenant stays ACTIVE on its shard. Thrown by {@link TenantMover#move} and
 * {@link TenantMover#moveAndWait} when the checks of {@link TenantMover#check} find a problem: a shard of the move has
 * tenant tables the move cannot write without firing triggers of the application (see {@code docs/moves.md},
 * "Triggers"), a table's columns differ between the shards, or rows of other tenants on the target hold one of the
 * tenant's keys; {@link #reasons()} names each table (and trigger, column or key), why, and the remedy.
 */
public class MoveRefusedException extends MoveException {

	private final List<String> reasons;

	/**
	 * @param message what was refused and why, naming the tables and triggers
	 * @param tenantId the tenant
	 * @param shardId the shard whose tables refused the move
	 * @param directoryVersion the directory version of the tenant's entry, or {@code -1}
	 * @param reasons one sentence per problem; not {@code null}
	 */
	public MoveRefusedException(String message, String tenantId, String shardId, long directoryVersion,
			List<String> reasons) {
		super(message, tenantId, shardId, directoryVersion, null);
		this.reasons = List.copyOf(reasons);
	}

	/** @return one sentence per problem, naming the table (and trigger, column or key), why and the remedy */
	public List<String> reasons() {
		return this.reasons;
	}

}
