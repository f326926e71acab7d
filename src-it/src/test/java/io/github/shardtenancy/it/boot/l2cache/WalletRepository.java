package io.github.shardtenancy.it.boot.l2cache;

import java.util.List;
import java.util.UUID;

import jakarta.persistence.QueryHint;
import org.hibernate.jpa.HibernateHints;
import org.springframework.data.jpa.repository.JpaRepository;
import org.springframework.data.jpa.repository.QueryHints;

/** Spring Data repository of wallets, with a query whose results Hibernate keeps in its query cache. */
public interface WalletRepository extends JpaRepository<Wallet, UUID> {

	@QueryHints(@QueryHint(name = HibernateHints.HINT_CACHEABLE, value = "true"))
	List<Wallet> findByOwnerOrderByBalance(String owner);

}
