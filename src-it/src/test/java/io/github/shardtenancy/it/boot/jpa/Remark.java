package io.github.shardtenancy.it.boot.jpa;

import jakarta.persistence.Entity;
import jakarta.persistence.GeneratedValue;
import jakarta.persistence.GenerationType;
import jakarta.persistence.Id;
import jakarta.persistence.Table;
import org.hibernate.annotations.TenantId;

/** A remark: an IDENTITY id, so that persisting one runs its insert at once and reads the generated key back. */
@Entity
@Table(name = "pg_remark")
public class Remark {

	@Id
	@GeneratedValue(strategy = GenerationType.IDENTITY)
	private Long id;

	@TenantId
	private String tenantId;

	private String body;

	protected Remark() {
	}

	/** @param body the text */
	public Remark(String body) {
		this.body = body;
	}

	public Long getId() {
		return this.id;
	}

	public String getTenantId() {
		return this.tenantId;
	}

	public String getBody() {
		return this.body;
	}

}
