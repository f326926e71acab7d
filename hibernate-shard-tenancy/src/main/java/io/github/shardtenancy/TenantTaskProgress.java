package io.github.shardtenancy;

/**
 * A snapshot of a {@link TenantTaskRun}'s progress; the counts add up to {@code total}.
 *
 * @param total the tenants of the run
 * @param done the tenants whose work committed in this run
 * @param alreadyDone the tenants skipped because an earlier run of the same name completed them
 * @param failed the tenants whose work failed
 * @param notRun the tenants left out because the run was stopped
 * @param remaining the tenants waiting or running
 */
public record TenantTaskProgress(int total, int done, int alreadyDone, int failed, int notRun, int remaining) {

	/** @return whether no tenant is waiting or running */
	public boolean finished() {
		return this.remaining == 0;
	}

}
