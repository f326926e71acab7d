package io.github.shardtenancy.benchmarks.app.domain;

import java.util.UUID;

import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.Table;
import org.hibernate.annotations.TenantId;

/**
 * A tenant's order: read and modified by every benchmark transaction. A {@link PersistableEntity}, so that Spring
 * Data's {@code save} of a new order persists it without selecting it first.
 */
@Entity
@Table(name = "bench_order")
public class BenchOrder extends PersistableEntity<UUID> {

	@Id
	private UUID id;

	@TenantId
	private String tenantId;

	private int revision;

	private long total;

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
