package io.github.shardtenancy.boot.testapp;

import java.util.UUID;

import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import org.hibernate.annotations.TenantId;

/** A tenant's note: the test domain. The id is assigned by the caller, so a retried save is a plain insert. */
@Entity
public class Note {

	@Id
	private UUID id;

	@TenantId
	private String tenantId;

	private String title;

	protected Note() {
	}

	public Note(String title) {
		this.id = UUID.randomUUID();
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
