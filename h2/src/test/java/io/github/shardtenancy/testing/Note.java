package io.github.shardtenancy.testing;

import java.util.UUID;

import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.GeneratedValue;
import jakarta.persistence.Id;
import jakarta.persistence.Table;
import org.hibernate.annotations.TenantId;

/** The core tests' tenant entity: a note with a generated UUID id, on table {@code note}. */
@Entity
@Table(name = "note")
public class Note {

	@Id
	@GeneratedValue
	private UUID id;

	@TenantId
	@Column(name = "tenant_id")
	private String tenantId;

	private String body;

	protected Note() {
	}

	/** @param body the text */
	public Note(String body) {
		this.body = body;
	}

	/** @return the id, {@code null} until persisted */
	public UUID getId() {
		return this.id;
	}

	/** @return the tenant, set by Hibernate from the session */
	public String getTenantId() {
		return this.tenantId;
	}

	/** @return the text */
	public String getBody() {
		return this.body;
	}

}
