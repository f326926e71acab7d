package io.github.shardtenancy.it.boot.iso;

import java.util.UUID;

import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.Table;
import org.hibernate.annotations.TenantId;

/** A tenant's memo. The id is assigned by the caller. */
@Entity
@Table(name = "pg_iso_memo")
public class PgMemo {

	@Id
	private UUID id;

	@TenantId
	private String tenantId;

	private String title;

	protected PgMemo() {
	}

	public PgMemo(UUID id, String title) {
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
