package io.github.shardtenancy.it.boot.rerun;

import java.util.UUID;

import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.Table;
import org.hibernate.annotations.TenantId;

/** A tenant's entry, fenced: writing one is rejected while the tenant is frozen or routed stale. */
@Entity
@Table(name = "pg_rerun_entry")
public class RerunEntry {

	@Id
	private UUID id;

	@TenantId
	private String tenantId;

	private String title;

	protected RerunEntry() {
	}

	public RerunEntry(String title) {
		this.id = UUID.randomUUID();
		this.title = title;
	}

	public UUID getId() {
		return this.id;
	}

	public String getTitle() {
		return this.title;
	}

}
