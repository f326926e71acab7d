package io.github.shardtenancy.boot.rerunapp;

import java.util.UUID;

import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.Table;
import org.hibernate.annotations.TenantId;

/** A tenant's entry, fenced: writing one is rejected while the tenant is frozen. */
@Entity
@Table(name = "rerun_entry")
public class Entry {

	@Id
	private UUID id;

	@TenantId
	private String tenantId;

	private String title;

	protected Entry() {
	}

	public Entry(String title) {
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
