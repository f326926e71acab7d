package io.github.shardtenancy.it.support;

import java.util.UUID;

import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.Table;
import org.hibernate.annotations.TenantId;

/**
 * The entity of the PostgreSQL integration tests, mapped on the {@code pg_note} table of
 * {@code PostgresCluster.NOTES_CHANGELOG}. In {@code it.support}, which no Spring Boot test application's package
 * contains, so that none scans it into its persistence unit.
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
