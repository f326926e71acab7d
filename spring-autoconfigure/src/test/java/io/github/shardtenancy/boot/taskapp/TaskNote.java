package io.github.shardtenancy.boot.taskapp;

import java.util.UUID;

import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.Table;
import org.hibernate.annotations.TenantId;

/** A tenant's note on {@code pg_note}; the id is assigned here, so a retried save is a plain insert. */
@Entity
@Table(name = "pg_note")
public class TaskNote {

	@Id
	private UUID id;

	@TenantId
	@Column(name = "tenant_id")
	private String tenantId;

	private String text;

	protected TaskNote() {
	}

	public TaskNote(String text) {
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
