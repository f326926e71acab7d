package io.github.shardtenancy.benchmarks.app.domain;

import java.io.Serializable;
import java.util.UUID;

import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.IdClass;
import jakarta.persistence.Table;
import org.hibernate.annotations.TenantId;

/**
 * An item of a tenant's order, keyed by the order and its number: the move figure's table with a composite primary
 * key {@code (order_id, line_no)}, written by its writers beside the order lines. A {@link PersistableEntity}, for the
 * reason given there.
 */
@Entity
@Table(name = "bench_line_item")
@IdClass(BenchLineItem.Key.class)
public class BenchLineItem extends PersistableEntity<BenchLineItem.Key> {

	@Id
	private UUID orderId;

	@Id
	private int lineNo;

	@TenantId
	private String tenantId;

	private long qty;

	protected BenchLineItem() {
	}

	/**
	 * @param orderId the order
	 * @param lineNo the item's number in the order
	 */
	public BenchLineItem(UUID orderId, int lineNo) {
		this.orderId = orderId;
		this.lineNo = lineNo;
		this.qty = 1;
	}

	/** @return the key */
	@Override
	public Key getId() {
		return new Key(this.orderId, this.lineNo);
	}

	/** Adds one to the quantity. */
	public void addOne() {
		this.qty++;
	}

	/**
	 * The primary key.
	 * @param orderId the order
	 * @param lineNo the item's number in the order
	 */
	public record Key(UUID orderId, int lineNo) implements Serializable {
	}

}
