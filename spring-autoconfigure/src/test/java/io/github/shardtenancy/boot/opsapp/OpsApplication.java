package io.github.shardtenancy.boot.opsapp;

import java.util.List;

import io.github.shardtenancy.TenantTable;
import io.github.shardtenancy.boot.ShardTenancyBuilderCustomizer;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.context.annotation.Bean;
import org.springframework.scheduling.annotation.EnableAsync;
import org.springframework.scheduling.annotation.EnableScheduling;

/**
 * The operations test application: an audit entity written after commit by an {@code @Async} service, a scheduled
 * job, a web controller (open session in view is on, as Boot's default), and its tenant table given to the tenancy's
 * builder.
 */
@SpringBootApplication
@EnableAsync
@EnableScheduling
public class OpsApplication {

	/** The tenant table the mover moves and the fence guards; the change capture it needs is installed at start. */
	@Bean
	ShardTenancyBuilderCustomizer opsTenantTables() {
		return (builder) -> builder.tenantTables(List.of(new TenantTable("audit_entry", "tenant_id")));
	}

}
