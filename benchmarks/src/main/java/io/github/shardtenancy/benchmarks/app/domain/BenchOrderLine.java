package io.github.shardtenancy.benchmarks.app.domain;

import java.util.UUID;

import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.Table;
import org.hibernate.annotations.TenantId;

/**
 * A line of a tenant's order: inserted by every write transaction. A {@link PersistableEntity}, for the reason
 * given there.
 */
@Entity
@Table(name = "bench_order_line")
public class BenchOrderLine extends PersistableEntity<UUID> {

	@Id
	private UUID id;

	@TenantId
	private String tenantId;

	private UUID orderId;

	private long amount;

	protected BenchOrderLine() {
	}

	/**
	 * @param orderId the order
	 * @param amount the amount
	 */
	public BenchOrderLine(UUID orderId, long amount) {
		this(UUID.randomUUID(), orderId, amount);
	}

	/**
	 * @param id the id, assigned by the caller
	 * @param orderId the order
	 * @param amount the amount
	 */
	public BenchOrderLine(UUID id, UUID orderId, long amount) {
		this.id = id;
		this.orderId = orderId;
		this.amount = amount;
	}

	/** @return the id */
	@Override
	public UUID getId() {
		return this.id;
	}

	/** @return the amount */
	public long getAmount() {
		return this.amount;
	}

}
