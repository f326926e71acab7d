package io.github.shardtenancy.sample.orders;

import java.util.UUID;

import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.GeneratedValue;
import jakarta.persistence.GenerationType;
import jakarta.persistence.Id;
import jakarta.persistence.Table;
import org.hibernate.annotations.TenantId;

/**
 * A customer of one tenant. The id is a UUID so that it stays unique when the tenant's rows move to another shard;
 * the tenant column is filled by Hibernate from the session's tenant ({@link TenantId}). Not thread-safe (a JPA
 * entity).
 */
@Entity
@Table(name = "customers")
public class Customer {

	@Id
	@GeneratedValue(strategy = GenerationType.UUID)
	private UUID id;

	@TenantId
	@Column(name = "tenant_id", nullable = false, updatable = false, length = 64)
	private String tenantId;

	@Column(name = "name", nullable = false, length = 200)
	private String name;

	protected Customer() {
	}

	/** @param name the customer's name, unique within the tenant, never {@code null} */
	public Customer(String name) {
		this.name = name;
	}

	/** @return the id, {@code null} until persisted */
	public UUID getId() {
		return this.id;
	}

	/** @return the owning tenant, {@code null} until persisted */
	public String getTenantId() {
		return this.tenantId;
	}

	/** @return the name */
	public String getName() {
		return this.name;
	}

}
