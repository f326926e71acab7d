package io.github.shardtenancy.it.boot.orders;

import java.util.UUID;

import jakarta.persistence.Entity;
import jakarta.persistence.GeneratedValue;
import jakarta.persistence.Id;
import org.hibernate.annotations.TenantId;

/** An order of the test domain: a generated UUID id and Hibernate's {@code @TenantId}. */
@Entity
public class PurchaseOrder {

	@Id
	@GeneratedValue
	private UUID id;

	@TenantId
	private String tenantId;

	private String customer;

	private long amount;

	protected PurchaseOrder() {
	}

	/**
	 * @param customer who ordered
	 * @param amount how much, in cents
	 */
	public PurchaseOrder(String customer, long amount) {
		this.customer = customer;
		this.amount = amount;
	}

	public UUID getId() {
		return this.id;
	}

	public String getTenantId() {
		return this.tenantId;
	}

	public String getCustomer() {
		return this.customer;
	}

	public long getAmount() {
		return this.amount;
	}

}
