package io.github.shardtenancy.it.boot.l2cache;

import java.util.UUID;

import jakarta.persistence.Cacheable;
import jakarta.persistence.Entity;
import jakarta.persistence.GeneratedValue;
import jakarta.persistence.Id;
import jakarta.persistence.Table;
import org.hibernate.annotations.Cache;
import org.hibernate.annotations.CacheConcurrencyStrategy;
import org.hibernate.annotations.TenantId;

/**
 * A tenant's wallet, kept in Hibernate's second-level cache (read-write). It has no {@code @Version} on purpose: a
 * read-modify-write of a stale cached wallet silently overwrites the newer row, the lost update the tests look for.
 */
@Entity
@Table(name = "l2_wallet")
@Cacheable
@Cache(usage = CacheConcurrencyStrategy.READ_WRITE)
public class Wallet {

	@Id
	@GeneratedValue
	private UUID id;

	@TenantId
	private String tenantId;

	private String owner;

	private long balance;

	protected Wallet() {
	}

	/**
	 * @param owner who owns it
	 * @param balance the opening balance, in cents
	 */
	public Wallet(String owner, long balance) {
		this.owner = owner;
		this.balance = balance;
	}

	public UUID getId() {
		return this.id;
	}

	public String getTenantId() {
		return this.tenantId;
	}

	public String getOwner() {
		return this.owner;
	}

	public long getBalance() {
		return this.balance;
	}

	/** @param amount cents to add to the balance */
	public void add(long amount) {
		this.balance += amount;
	}

}
