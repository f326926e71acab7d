package io.github.shardtenancy.boot.opsapp;

import java.util.UUID;

import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import org.hibernate.annotations.TenantId;

/** An audit row, written by the asynchronous audit service or the scheduled job. */
@Entity
public class AuditEntry {

	@Id
	private UUID id;

	@TenantId
	private String tenantId;

	private String message;

	private String thread;

	protected AuditEntry() {
	}

	public AuditEntry(String message) {
		this.id = UUID.randomUUID();
		this.message = message;
		this.thread = Thread.currentThread().getName();
	}

	public String getTenantId() {
		return this.tenantId;
	}

	public String getMessage() {
		return this.message;
	}

	public String getThread() {
		return this.thread;
	}

}
