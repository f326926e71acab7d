package io.github.shardtenancy.it.boot.rerun;

import java.util.UUID;

import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.Table;

/** An audit record in the shard, outside the tenant tables (no fence write check), as an audit table usually is. */
@Entity
@Table(name = "pg_rerun_audit")
public class RerunAudit {

	@Id
	private UUID id;

	@Column(name = "audited_tenant")
	private String auditedTenant;

	private String what;

	protected RerunAudit() {
	}

	public RerunAudit(String auditedTenant, String what) {
		this.id = UUID.randomUUID();
		this.auditedTenant = auditedTenant;
		this.what = what;
	}

	public String getWhat() {
		return this.what;
	}

}
