package io.github.shardtenancy.sample.orders;

import java.util.Optional;
import java.util.UUID;

import org.springframework.data.jpa.repository.JpaRepository;

/**
 * Customers of the current tenant. Every query is restricted to the tenant bound through
 * {@link io.github.shardtenancy.TenantContext} (Hibernate adds the {@code tenant_id} condition), and runs on its
 * shard.
 */
public interface CustomerRepository extends JpaRepository<Customer, UUID> {

	/**
	 * @param name the exact name
	 * @return the current tenant's customer of that name, or empty
	 */
	Optional<Customer> findByName(String name);

	/** @return the current tenant's first customer by name, or empty if it has none */
	Optional<Customer> findFirstByOrderByNameAsc();

}
