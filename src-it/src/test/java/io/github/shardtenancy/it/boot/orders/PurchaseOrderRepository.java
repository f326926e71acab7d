package io.github.shardtenancy.it.boot.orders;

import java.util.UUID;

import org.springframework.data.jpa.repository.JpaRepository;

/** Spring Data repository of orders; every call is a retry boundary of its own when no transaction is active. */
public interface PurchaseOrderRepository extends JpaRepository<PurchaseOrder, UUID> {

	long countByCustomer(String customer);

}
