package io.github.shardtenancy.boot.opsapp;

import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.List;

import io.github.shardtenancy.TenantContext;
import org.springframework.scheduling.annotation.Scheduled;
import org.springframework.stereotype.Component;

/**
 * A scheduled job, registered at start-up with no tenant: for each tenant queued, it writes an audit row as that
 * tenant with {@link TenantContext#runAs}, the way scheduled jobs and message listeners bind their tenant.
 */
@Component
public class AuditJob {

	private final AuditService audit;

	private final Queue<String> pending = new ConcurrentLinkedQueue<>();

	private final List<String> tenantsSeenAtStart = new CopyOnWriteArrayList<>();

	private final List<String> done = new CopyOnWriteArrayList<>();

	public AuditJob(AuditService audit) {
		this.audit = audit;
	}

	@Scheduled(fixedDelay = 20)
	public void run() {
		this.tenantsSeenAtStart.add(String.valueOf(TenantContext.current()));
		for (String tenant; (tenant = this.pending.poll()) != null;) {
			String message = "job for " + tenant;
			TenantContext.runAs(tenant, () -> this.audit.record(message));
			this.done.add(tenant);
		}
	}

	public void enqueue(String tenant) {
		this.pending.add(tenant);
	}

	public List<String> done() {
		return this.done;
	}

	/** @return the tenant bound when each run started ({@code "null"} for none) */
	public List<String> tenantsSeenAtStart() {
		return this.tenantsSeenAtStart;
	}

}
