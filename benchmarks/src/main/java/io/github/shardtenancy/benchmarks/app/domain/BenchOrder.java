package io.github.shardtenancy.benchmarks.app.domain;

import java.util.UUID;

import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.PostLoad;
import jakarta.persistence.PostPersist;
import jakarta.persistence.Table;
import jakarta.persistence.Transient;
import org.hibernate.annotations.TenantId;
import org.springframework.data.domain.Persistable;

/**
 * A tenant's order: read and modified by every benchmark transaction. {@link Persistable}, so that Spring Data's
 * {@code save} of a new order persists it instead of merging it (a merge of an entity with an assigned id selects it
 * first: one more round trip); the same on both sides of a comparison.
 */
@Entity
@Table(name = "bench_order")
public class BenchOrder implements Persistable<UUID> {

	@Id
	private UUID id;

	@TenantId
	private String tenantId;

	private int revision;

	private long total;

	/** Whether the order is not in the database yet (neither loaded nor persisted by this instance). */
	@Transient
	private boolean isNew = true;

	protected BenchOrder() {
	}

	/** @param id the id, assigned by the caller */
	public BenchOrder(UUID id) {
		this.id = id;
	}

	/** @return the id */
	@Override
	public UUID getId() {
		return this.id;
	}

	/** @return whether the order was neither loaded from nor persisted to the database yet */
	@Override
	public boolean isNew() {
		return this.isNew;
	}

	@PostLoad
	@PostPersist
	void markNotNew() {
		this.isNew = false;
	}

	/** @return the sum of the lines' amounts */
	public long getTotal() {
		return this.total;
	}

	/** @return the owning tenant, set by Hibernate from the current tenant */
	public String getTenantId() {
		return this.tenantId;
	}

	/** @return how often the order was modified */
	public int getRevision() {
		return this.revision;
	}

	/**
	 * Records one more line.
	 * @param amount the line's amount
	 */
	public void addToTotal(long amount) {
		this.revision++;
		this.total += amount;
	}

}
