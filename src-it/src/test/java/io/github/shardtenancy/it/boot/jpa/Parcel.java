package io.github.shardtenancy.it.boot.jpa;

import java.util.UUID;

import jakarta.persistence.Entity;
import jakarta.persistence.GeneratedValue;
import jakarta.persistence.Id;
import jakarta.persistence.Table;
import org.hibernate.annotations.TenantId;

/** A parcel: a UUID id generated in the JVM, so that saving parcels starts with (batched) inserts, no query. */
@Entity
@Table(name = "pg_parcel")
public class Parcel {

	@Id
	@GeneratedValue
	private UUID id;

	@TenantId
	private String tenantId;

	private String label;

	protected Parcel() {
	}

	/** @param label the label */
	public Parcel(String label) {
		this.label = label;
	}

	public UUID getId() {
		return this.id;
	}

	public String getTenantId() {
		return this.tenantId;
	}

	public String getLabel() {
		return this.label;
	}

}
