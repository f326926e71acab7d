package io.github.shardtenancy.boot;

import java.util.concurrent.atomic.AtomicInteger;

import javax.sql.DataSource;

import io.github.shardtenancy.ShardTenancy;
import io.github.shardtenancy.boot.taskapp.TaskApplication;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

/** {@link TransactionalTenantTasksContract} on two embedded H2 shards. */
@DisplayName("H2: TransactionalTenantTasks runs the application's own code per tenant")
class TransactionalTenantTasksTests extends TransactionalTenantTasksContract {

	private static final AtomicInteger TENANTS = new AtomicInteger();

	private static ConfigurableApplicationContext app;

	@BeforeAll
	static void start() {
		app = new SpringApplicationBuilder(TaskApplication.class).web(WebApplicationType.NONE)
			.properties("shard-tenancy.web.access.policy=none",
					"shard-tenancy.directory.url=jdbc:h2:mem:foreach-directory;DB_CLOSE_DELAY=-1;LOCK_TIMEOUT=10000",
					"shard-tenancy.shards.shard-1.url=jdbc:h2:mem:foreach-shard-1;DB_CLOSE_DELAY=-1;LOCK_TIMEOUT=10000",
					"shard-tenancy.shards.shard-2.url=jdbc:h2:mem:foreach-shard-2;DB_CLOSE_DELAY=-1;LOCK_TIMEOUT=10000",
					"shard-tenancy.liquibase.shard-changelogs=db/testing/pg-note.xml",
					"shard-tenancy.sync.interval=1h", "shard-tenancy.retry.max-delay=50ms",
					"shard-tenancy.actor=foreach-tests", "spring.jmx.enabled=false")
			.run();
	}

	@AfterAll
	static void stop() {
		if (app != null) {
			app.close();
		}
	}

	@Override
	protected ConfigurableApplicationContext app() {
		return app;
	}

	@Override
	protected DataSource raw(String shardId) {
		return app.getBean(ShardTenancy.class).topology().dataSource(shardId);
	}

	@Override
	protected String tenant(String prefix) {
		return prefix + "-" + TENANTS.incrementAndGet();
	}

}
