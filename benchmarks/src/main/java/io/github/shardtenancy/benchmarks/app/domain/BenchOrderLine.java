package io.github.shardtenancy.benchmarks.app.domain;

import java.util.UUID;

import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.Table;
import org.hibernate.annotations.TenantId;

/** A line of a tenant's order: inserted by every benchmark transaction. */
@Entity
@Table(name = "bench_order_line")
public class BenchOrderLine {

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
		this.id = UUID.randomUUID();
		this.orderId = orderId;
		this.amount = amount;
	}

	/** @return the id */
	public UUID getId() {
		return this.id;
	}

}
