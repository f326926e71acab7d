package io.github.shardtenancy.boot.rerunapp;

import java.util.UUID;

import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.Table;

/**
 * An audit record in the shard, outside the tenant tables (no tenant discriminator, so no fence write check): it
 * commits while the tenant is frozen, as an audit table of an application usually does.
 */
@Entity
@Table(name = "rerun_audit")
public class AuditRecord {

	@Id
	private UUID id;

	@Column(name = "audited_tenant")
	private String auditedTenant;

	private String what;

	protected AuditRecord() {
	}

	public AuditRecord(String auditedTenant, String what) {
		this.id = UUID.randomUUID();
		this.auditedTenant = auditedTenant;
		this.what = what;
	}

	public String getWhat() {
		return this.what;
	}

}
