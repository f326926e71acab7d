package io.github.shardtenancy.internal.move;

import io.github.shardtenancy.testing.TenantWriter;
import io.github.shardtenancy.HibernateTenantTables;
import java.util.List;

import io.github.shardtenancy.TenantTable;
import io.github.shardtenancy.internal.hibernate.TenantIdentifierResolver;
import io.github.shardtenancy.MoveSettings;
import io.github.shardtenancy.MoveStep;
import org.hibernate.SessionFactory;
import org.hibernate.cfg.Configuration;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import io.github.shardtenancy.EntityCheck;
import io.github.shardtenancy.internal.hibernate.EntityTenancy;

import static org.assertj.core.api.Assertions.assertThat;

class HibernateTenantTablesTest {

	@Test
	@DisplayName("the tables of entities with @TenantId are discovered from the metamodel and moved")
	void tenantTablesAreDiscoveredAndMoved() throws Exception {
		try (MoveFixture fixture = new MoveFixture(2, 8)) {
			Configuration configuration = new Configuration().addAnnotatedClass(OrderEntity.class)
				.addAnnotatedClass(OrderLineEntity.class)
				.addAnnotatedClass(SharedSettingEntity.class);
			// SharedSettingEntity has no tenant on purpose: the entity check would refuse it.
			fixture.provider().setEntityTenancy(new EntityTenancy(EntityCheck.OFF, List.of()));
			configuration.getProperties().put("hibernate.multi_tenant_connection_provider", fixture.provider());
			configuration.getProperties().put("hibernate.tenant_identifier_resolver", new TenantIdentifierResolver());
			configuration.setProperty("hibernate.dialect", "org.hibernate.dialect.H2Dialect");
			configuration.setProperty("hibernate.boot.allow_jdbc_metadata_access", "false");
			configuration.setProperty("hibernate.hbm2ddl.auto", "none");
			try (SessionFactory sessionFactory = configuration.buildSessionFactory()) {
				List<TenantTable> tables = HibernateTenantTables.discover(sessionFactory);

				assertThat(tables).containsExactlyInAnyOrder(new TenantTable("customer_order", "tenant_id"),
						new TenantTable("order_line", "tenant_id"));

				fixture.admin().create("acme", "shard-1");
				TenantWriter writer = MoveFixture.writer(fixture, "acme", new java.util.concurrent.atomic.AtomicBoolean());
				writer.write(50);
				Mover mover = fixture.mover(tables);
				String moveId = mover.moveAndWait("acme", "shard-2", MoveSettings.defaults()).moveId();

				assertThat(mover.status(moveId).step()).isEqualTo(MoveStep.DONE);
				assertThat(fixture.orders("shard-2", "acme")).isEqualTo(TenantWriter.committedOrders(List.of(writer)));
				assertThat(fixture.lines("shard-2", "acme")).isEqualTo(TenantWriter.committedLines(List.of(writer)));
				assertThat(fixture.rows("shard-1", "acme")).isZero();
			}
		}
	}

}
