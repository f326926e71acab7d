package io.github.shardtenancy.it.boot.l2cache;

import java.util.UUID;

import jakarta.persistence.Entity;
import jakarta.persistence.GeneratedValue;
import jakarta.persistence.Id;
import jakarta.persistence.Table;
import org.hibernate.annotations.TenantId;

/** A movement recorded with each change of a wallet's balance; not cached. */
@Entity
@Table(name = "l2_movement")
public class Movement {

	@Id
	@GeneratedValue
	private UUID id;

	@TenantId
	private String tenantId;

	private UUID walletId;

	private long amount;

	protected Movement() {
	}

	/**
	 * @param walletId the wallet
	 * @param amount cents added to it
	 */
	public Movement(UUID walletId, long amount) {
		this.walletId = walletId;
		this.amount = amount;
	}

	public UUID getId() {
		return this.id;
	}

	public UUID getWalletId() {
		return this.walletId;
	}

	public long getAmount() {
		return this.amount;
	}

}
