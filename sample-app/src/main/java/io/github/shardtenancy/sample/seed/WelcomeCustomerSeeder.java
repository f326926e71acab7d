package io.github.shardtenancy.sample.seed;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.UUID;

import io.github.shardtenancy.DirectoryEntry;
import io.github.shardtenancy.spi.TenantSeeder;
import org.springframework.stereotype.Component;

/**
 * A new tenant's first customer, {@code "Customer of <tenant>"}, written by {@code TenantAdmin.create} in the seed
 * transaction on the tenant's shard (see {@link TenantSeeder}). Plain JDBC with a UUID made here, so that the same
 * seeder works on H2 and PostgreSQL; a {@code shard-tenancy.seed.locations} script does the same with the database's
 * UUID function. Stateless.
 */
@Component
class WelcomeCustomerSeeder implements TenantSeeder {

	@Override
	public void seed(DirectoryEntry tenant, Connection connection) throws SQLException {
		try (PreparedStatement insert = connection
			.prepareStatement("INSERT INTO customers (id, tenant_id, name) VALUES (?, ?, ?)")) {
			insert.setObject(1, UUID.randomUUID());
			insert.setString(2, tenant.tenantId());
			insert.setString(3, "Customer of " + tenant.tenantId());
			insert.executeUpdate();
		}
	}

}
