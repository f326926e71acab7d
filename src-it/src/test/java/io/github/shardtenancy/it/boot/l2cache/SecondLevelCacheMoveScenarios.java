package io.github.shardtenancy.it.boot.l2cache;

import java.time.Duration;
import java.util.List;
import java.util.UUID;

import io.github.shardtenancy.DirectoryEntry;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Two instances of {@link WalletApplication}, A and B, each with its own router and second-level cache, on the same
 * directory and shards. A caches a tenant's wallet (and a query of its wallets); B moves the tenant from shard-1 to
 * shard-2 and changes the wallets there; A then writes. A's write must start from B's data, never from its own cached
 * copy: no lost update, whether A learns of the move from a fence rejection (and the retry) or from the directory
 * sync. Subclasses supply the databases.
 */
abstract class SecondLevelCacheMoveScenarios {

	/** @return instance A: the one that caches, then misses the move */
	abstract WalletInstance a();

	/** @return instance B: the one that moves the tenant and writes on the new shard */
	abstract WalletInstance b();

	/** @return a tenant id not used before */
	abstract String newTenant(String prefix);

	/** @return the {@code shard-tenancy} database properties, for an extra instance */
	abstract List<String> databaseProperties();

	/** Creates the tenant on shard-1 through A with a wallet of 100 for "ann", and has A cache it. */
	private UUID walletCachedByA(String tenant) {
		WalletInstance a = a();
		a.admin().create(tenant, "shard-1");
		UUID wallet = a.as(tenant, () -> a.wallets().open("ann", 100));
		assertThat(a.as(tenant, () -> a.wallets().balances("ann"))).containsExactly(100L);
		long entityHits = a.statistics().getSecondLevelCacheHitCount();
		long queryHits = a.statistics().getQueryCacheHitCount();
		assertThat(a.as(tenant, () -> a.wallets().balance(wallet))).isEqualTo(100);
		assertThat(a.as(tenant, () -> a.wallets().balances("ann"))).containsExactly(100L);
		assertThat(a.statistics().getSecondLevelCacheHitCount()).as("A reads the wallet from its second-level cache")
			.isGreaterThan(entityHits);
		assertThat(a.statistics().getQueryCacheHitCount()).as("A reads the query from its query cache")
			.isGreaterThan(queryHits);
		return wallet;
	}

	/** B moves the tenant to shard-2 (A does not hear of it), adds 10 to the wallet and opens a second one of 5. */
	private UUID bMovesAndWrites(String tenant, UUID wallet) {
		WalletInstance b = b();
		b.admin().move(tenant, "shard-2");
		assertThat(b.as(tenant, () -> b.wallets().add(wallet, 10))).isEqualTo(110);
		UUID second = b.as(tenant, () -> b.wallets().open("ann", 5));
		assertThat(b.balanceRow("shard-2", wallet)).isEqualTo(110);
		assertThat(a().router().cached(tenant)).as("A did not hear of the move")
			.get()
			.extracting(DirectoryEntry::shardId)
			.isEqualTo("shard-1");
		return second;
	}

	@Test
	@DisplayName("EntityManager.find: A's write after a move it missed is rejected, retried on shard-2, and applies "
			+ "on top of B's update")
	void findAfterMissedMove() {
		WalletInstance a = a();
		String tenant = newTenant("l2-find");
		UUID wallet = walletCachedByA(tenant);
		bMovesAndWrites(tenant, wallet);
		long invalidations = a.router().stats().invalidations();

		long balance = a.as(tenant, () -> a.wallets().add(wallet, 1));

		assertThat(a.router().stats().invalidations() - invalidations).as("A's first attempt was rejected once")
			.isEqualTo(1);
		assertThat(balance).as("A's change on top of B's").isEqualTo(111);
		assertThat(a.balanceRow("shard-2", wallet)).as("the row on the new owner").isEqualTo(111);
		assertThat(a.balanceRow("shard-1", wallet)).as("nothing left on the old owner").isNull();
		assertThat(a.as(tenant, () -> a.wallets().balance(wallet))).isEqualTo(111);
	}

	@Test
	@DisplayName("cached Spring Data query: A's write after a move it missed is retried on shard-2 and sees both "
			+ "wallets at B's balances")
	void cachedQueryAfterMissedMove() {
		WalletInstance a = a();
		String tenant = newTenant("l2-query");
		UUID wallet = walletCachedByA(tenant);
		UUID second = bMovesAndWrites(tenant, wallet);
		long invalidations = a.router().stats().invalidations();

		int changed = a.as(tenant, () -> a.wallets().addToAll("ann", 1000));

		assertThat(a.router().stats().invalidations() - invalidations).as("A's first attempt was rejected once")
			.isEqualTo(1);
		assertThat(changed).as("wallets the query found").isEqualTo(2);
		assertThat(a.balanceRow("shard-2", wallet)).isEqualTo(1110);
		assertThat(a.balanceRow("shard-2", second)).isEqualTo(1005);
		assertThat(a.as(tenant, () -> a.wallets().balances("ann"))).containsExactly(1005L, 1110L);
	}

	@Test
	@DisplayName("A hears of the move by the directory sync first: its caches are evicted, its write goes straight "
			+ "to shard-2 and applies on top of B's update")
	void syncBeforeWrite() {
		WalletInstance a = a();
		String tenant = newTenant("l2-sync");
		UUID wallet = walletCachedByA(tenant);
		UUID second = bMovesAndWrites(tenant, wallet);
		long evictions = a.eviction().evictions();

		a.router().refresh();

		assertThat(a.router().cached(tenant)).get().extracting(DirectoryEntry::shardId).isEqualTo("shard-2");
		assertThat(a.eviction().evictions()).as("A evicted its caches").isGreaterThan(evictions);
		long invalidations = a.router().stats().invalidations();
		assertThat(a.as(tenant, () -> a.wallets().balance(wallet))).isEqualTo(110);
		assertThat(a.as(tenant, () -> a.wallets().add(wallet, 1))).isEqualTo(111);
		assertThat(a.as(tenant, () -> a.wallets().addToAll("ann", 1000))).isEqualTo(2);
		assertThat(a.router().stats().invalidations() - invalidations).as("no rejection").isZero();
		assertThat(a.balanceRow("shard-2", wallet)).isEqualTo(1111);
		assertThat(a.balanceRow("shard-2", second)).isEqualTo(1005);
	}

	@Test
	@DisplayName("A's router evicted the tenant's entry for size and reads it again after the move: A's caches are "
			+ "evicted before it routes to shard-2, and its write applies on top of B's update")
	void entryEvictedForSizeThenReadAgain() {
		try (WalletInstance c = WalletInstance.start("l2-small-router", databaseProperties(),
				"shard-tenancy.cache.maximum-entries=1")) {
			String tenant = newTenant("l2-size");
			String other = newTenant("l2-size-other");
			c.admin().create(tenant, "shard-1");
			b().admin().create(other, "shard-1");
			UUID wallet = c.as(tenant, () -> c.wallets().open("ann", 100));
			long entityHits = c.statistics().getSecondLevelCacheHitCount();
			assertThat(c.as(tenant, () -> c.wallets().balance(wallet))).isEqualTo(100);
			assertThat(c.statistics().getSecondLevelCacheHitCount()).isGreaterThan(entityHits);
			// Route the other tenant until the router (room for one entry) evicts this one.
			await().atMost(Duration.ofSeconds(30)).until(() -> {
				c.router().route(other);
				return c.router().cached(tenant).isEmpty();
			});
			b().admin().move(tenant, "shard-2");
			assertThat(b().as(tenant, () -> b().wallets().add(wallet, 10))).isEqualTo(110);
			long invalidations = c.router().stats().invalidations();

			long balance = c.as(tenant, () -> c.wallets().add(wallet, 1));

			assertThat(c.router().stats().invalidations() - invalidations).as("no rejection: read again on the miss")
				.isZero();
			assertThat(balance).isEqualTo(111);
			assertThat(c.balanceRow("shard-2", wallet)).isEqualTo(111);
		}
	}

}
