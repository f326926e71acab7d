package io.github.shardtenancy.it.support;

import java.util.UUID;

import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.Table;
import org.hibernate.annotations.TenantId;

/**
 * The entity of the PostgreSQL integration tests ({@code io.github.shardtenancy.it.pg}), mapped on the
 * {@code pg_note} table of {@code db/it-pg/pg-note.xml}. Deliberately outside the {@code io.github.shardtenancy.it}
 * package tree, so that a Spring Boot test application there does not scan it into its H2 persistence unit.
 */
@Entity
@Table(name = "pg_note")
public class PgNote {

	@Id
	private UUID id;

	@TenantId
	@Column(name = "tenant_id")
	private String tenantId;

	private String text;

	protected PgNote() {
	}

	public PgNote(String text) {
		this.id = UUID.randomUUID();
		this.text = text;
	}

	public UUID getId() {
		return this.id;
	}

	public String getTenantId() {
		return this.tenantId;
	}

	public String getText() {
		return this.text;
	}

}
