package io.github.shardtenancy.boot.readme;

import java.util.UUID;

import org.springframework.data.jpa.repository.JpaRepository;

/** The quick start's Spring Data repository. */
public interface PurchaseOrderRepository extends JpaRepository<PurchaseOrder, UUID> {

}
