package io.github.shardtenancy.boot.isoapp;

import java.util.UUID;

import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.Table;
import org.hibernate.annotations.TenantId;

/** A tenant's memo. The id is assigned by the caller. */
@Entity
@Table(name = "iso_memo")
public class Memo {

	@Id
	private UUID id;

	@TenantId
	private String tenantId;

	private String title;

	protected Memo() {
	}

	public Memo(UUID id, String title) {
		this.id = id;
		this.title = title;
	}

	public UUID getId() {
		return this.id;
	}

	public String getTenantId() {
		return this.tenantId;
	}

	public String getTitle() {
		return this.title;
	}

}
