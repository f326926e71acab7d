package io.github.shardtenancy.it.security.rls;

import java.util.UUID;

import jakarta.persistence.Entity;
import jakarta.persistence.GeneratedValue;
import jakarta.persistence.GenerationType;
import jakarta.persistence.Id;
import jakarta.persistence.Table;
import org.hibernate.annotations.TenantId;

/** A note of a tenant. */
@Entity
@Table(name = "pg_rls_note")
public class RlsNote {

	@Id
	@GeneratedValue(strategy = GenerationType.UUID)
	private UUID id;

	@TenantId
	private String tenantId;

	private String body;

	protected RlsNote() {
	}

	/** @param body the text */
	public RlsNote(String body) {
		this.body = body;
	}

	public UUID getId() {
		return this.id;
	}

	public String getTenantId() {
		return this.tenantId;
	}

	public String getBody() {
		return this.body;
	}

}
