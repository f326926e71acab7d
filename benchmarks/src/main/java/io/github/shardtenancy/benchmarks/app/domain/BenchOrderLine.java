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
 * A line of a tenant's order: inserted by every write transaction. {@link Persistable} for the reason given on
 * {@link BenchOrder}.
 */
@Entity
@Table(name = "bench_order_line")
public class BenchOrderLine implements Persistable<UUID> {

	@Id
	private UUID id;

	@TenantId
	private String tenantId;

	private UUID orderId;

	private long amount;

	/** Whether the line is not in the database yet (neither loaded nor persisted by this instance). */
	@Transient
	private boolean isNew = true;

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

	/** @return whether the line was neither loaded from nor persisted to the database yet */
	@Override
	public boolean isNew() {
		return this.isNew;
	}

	@PostLoad
	@PostPersist
	void markNotNew() {
		this.isNew = false;
	}

}
