package io.github.shardtenancy.benchmarks.app.library;

import io.github.shardtenancy.benchmarks.app.domain.BenchLineItemRepository;
import io.github.shardtenancy.benchmarks.app.domain.BenchOrder;
import io.github.shardtenancy.benchmarks.app.domain.BenchOrderLineRepository;
import io.github.shardtenancy.benchmarks.app.domain.BenchOrderRepository;
import io.github.shardtenancy.benchmarks.app.domain.LineItemService;
import io.github.shardtenancy.benchmarks.app.domain.OrderService;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.persistence.autoconfigure.EntityScan;
import org.springframework.context.annotation.Bean;
import org.springframework.data.jpa.repository.config.EnableJpaRepositories;

/**
 * The application as a user of the library writes it: the domain, and the library's Spring Boot auto-configuration
 * doing the rest from {@code shard-tenancy.*} properties (directory, shards, routing, fence, retry).
 */
@SpringBootApplication
@EntityScan(basePackageClasses = BenchOrder.class)
@EnableJpaRepositories(basePackageClasses = BenchOrder.class)
public class LibraryApplication {

	@Bean
	OrderService orderService(BenchOrderRepository orders, BenchOrderLineRepository lines) {
		return new OrderService(orders, lines);
	}

	@Bean
	LineItemService lineItemService(BenchLineItemRepository items) {
		return new LineItemService(items);
	}

	@Bean
	RetryCounter retryCounter() {
		return new RetryCounter();
	}

}
