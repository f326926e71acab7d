package io.github.shardtenancy.sample.orders;

import java.util.List;
import java.util.UUID;

import org.springframework.data.jpa.repository.JpaRepository;
import org.springframework.data.jpa.repository.Query;

/**
 * Orders of the current tenant (see {@link CustomerRepository} for how the tenant applies).
 */
public interface PurchaseOrderRepository extends JpaRepository<PurchaseOrder, UUID> {

	/** @return the current tenant's orders, oldest first, with customer and lines loaded */
	@Query("select distinct o from PurchaseOrder o join fetch o.customer left join fetch o.lines "
			+ "order by o.createdAt, o.id")
	List<PurchaseOrder> findAllWithLines();

}
