package io.github.shardtenancy.benchmarks.app.plain;

import io.github.shardtenancy.TenantContext;
import io.github.shardtenancy.benchmarks.app.domain.BenchOrder;
import io.github.shardtenancy.benchmarks.app.domain.BenchOrderLineRepository;
import io.github.shardtenancy.benchmarks.app.domain.BenchOrderRepository;
import io.github.shardtenancy.benchmarks.app.domain.OrderService;
import org.hibernate.cfg.MultiTenancySettings;
import org.hibernate.context.spi.CurrentTenantIdentifierResolver;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.hibernate.autoconfigure.HibernatePropertiesCustomizer;
import org.springframework.boot.persistence.autoconfigure.EntityScan;
import org.springframework.context.annotation.Bean;
import org.springframework.data.jpa.repository.config.EnableJpaRepositories;

/**
 * The baseline: the same domain and service as plain Spring Data JPA on Boot's one HikariCP {@code DataSource}, with
 * Hibernate's own discriminator multi-tenancy ({@code @TenantId} filled from the thread's tenant), which is what a
 * single-database multi-tenant application runs today. The library's auto-configuration is switched off
 * ({@code shard-tenancy.enabled=false}).
 */
@SpringBootApplication
@EntityScan(basePackageClasses = BenchOrder.class)
@EnableJpaRepositories(basePackageClasses = BenchOrder.class)
public class PlainApplication {

	@Bean
	OrderService orderService(BenchOrderRepository orders, BenchOrderLineRepository lines) {
		return new OrderService(orders, lines);
	}

	@Bean
	HibernatePropertiesCustomizer plainTenantResolver() {
		CurrentTenantIdentifierResolver<String> resolver = new CurrentTenantIdentifierResolver<>() {

			@Override
			public String resolveCurrentTenantIdentifier() {
				String tenant = TenantContext.current();
				return tenant != null ? tenant : "";
			}

			@Override
			public boolean validateExistingCurrentSessions() {
				return true;
			}

		};
		return (properties) -> properties.put(MultiTenancySettings.MULTI_TENANT_IDENTIFIER_RESOLVER, resolver);
	}

}
