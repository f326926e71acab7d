package io.github.shardtenancy.it.boot.l2cache;

import java.util.List;
import java.util.UUID;

import jakarta.persistence.EntityManager;
import jakarta.persistence.PersistenceContext;
import org.springframework.stereotype.Service;
import org.springframework.transaction.annotation.Transactional;

/**
 * Wallet operations as an application writes them: read-modify-write through {@link EntityManager#find} and through
 * the cached Spring Data query; each public method is a transaction and a retry boundary.
 */
@Service
public class WalletService {

	@PersistenceContext
	private EntityManager entityManager;

	private final WalletRepository wallets;

	WalletService(WalletRepository wallets) {
		this.wallets = wallets;
	}

	/**
	 * @param owner the owner
	 * @param balance the opening balance
	 * @return the new wallet's id
	 */
	@Transactional
	public UUID open(String owner, long balance) {
		Wallet wallet = new Wallet(owner, balance);
		this.entityManager.persist(wallet);
		return wallet.getId();
	}

	/** @return the wallet's balance, read through {@link EntityManager#find} (second-level cache first) */
	@Transactional(readOnly = true)
	public long balance(UUID id) {
		return this.entityManager.find(Wallet.class, id).getBalance();
	}

	/**
	 * Records a movement and adds it to a wallet found with {@link EntityManager#find} (second-level cache first).
	 * The movement's insert is the transaction's first statement, so a stale route is rejected before Hibernate
	 * touches the wallet's cache entry.
	 * @return the new balance
	 */
	@Transactional
	public long add(UUID id, long amount) {
		Wallet wallet = this.entityManager.find(Wallet.class, id);
		this.entityManager.persist(new Movement(id, amount));
		wallet.add(amount);
		return wallet.getBalance();
	}

	/** @return the balances of the owner's wallets, lowest first, through the cached query */
	@Transactional(readOnly = true)
	public List<Long> balances(String owner) {
		return this.wallets.findByOwnerOrderByBalance(owner).stream().map(Wallet::getBalance).toList();
	}

	/**
	 * Records a movement for, and adds to, every wallet of the owner, found with the cached query (its wallets from
	 * the second-level cache).
	 * @return how many wallets it changed
	 */
	@Transactional
	public int addToAll(String owner, long amount) {
		List<Wallet> found = this.wallets.findByOwnerOrderByBalance(owner);
		found.forEach((wallet) -> {
			this.entityManager.persist(new Movement(wallet.getId(), amount));
			wallet.add(amount);
		});
		return found.size();
	}

}
