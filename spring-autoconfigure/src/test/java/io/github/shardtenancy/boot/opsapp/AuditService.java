package io.github.shardtenancy.boot.opsapp;

import java.util.concurrent.CompletableFuture;

import io.github.shardtenancy.TenantContext;
import org.springframework.scheduling.annotation.Async;
import org.springframework.stereotype.Service;
import org.springframework.transaction.annotation.Transactional;

/** Writes audit rows: asynchronously on Boot's task executor, or at once. */
@Service
public class AuditService {

	private final AuditRepository audits;

	public AuditService(AuditRepository audits) {
		this.audits = audits;
	}

	/** @return the tenant the task ran with, once the row is committed */
	@Async
	@Transactional
	public CompletableFuture<String> recordAsync(String message) {
		this.audits.save(new AuditEntry(message));
		return CompletableFuture.completedFuture(TenantContext.current() + "@" + Thread.currentThread().getName());
	}

	@Transactional
	public void record(String message) {
		this.audits.saveAndFlush(new AuditEntry(message));
	}

	@Transactional(readOnly = true)
	public long count() {
		return this.audits.count();
	}

}
