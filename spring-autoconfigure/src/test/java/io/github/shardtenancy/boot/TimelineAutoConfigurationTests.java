package io.github.shardtenancy.boot;

import java.util.UUID;

import io.github.shardtenancy.ShardTenancy;
import io.github.shardtenancy.TenantAdmin;
import io.github.shardtenancy.TenantContext;
import io.github.shardtenancy.boot.actuate.ShardTenancyEndpoint;
import io.github.shardtenancy.boot.actuate.Timeline;
import io.github.shardtenancy.boot.actuate.TimelineRecorder;
import io.github.shardtenancy.boot.retry.CommittedTransactionListener;
import org.h2.jdbcx.JdbcDataSource;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.springframework.boot.actuate.autoconfigure.endpoint.EndpointAutoConfiguration;
import org.springframework.boot.actuate.autoconfigure.endpoint.web.WebEndpointAutoConfiguration;
import org.springframework.boot.actuate.endpoint.InvalidEndpointRequestException;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The timeline's beans in real small Spring contexts on H2: recorded only while the endpoint is available and
 * {@code shard-tenancy.timeline.enabled} is not false, its commit counter on the application's own transaction manager
 * next to the retry's listener.
 */
@DisplayName("the timeline's auto-configuration")
class TimelineAutoConfigurationTests {

	private static String h2(String name) {
		return "jdbc:h2:mem:" + name + "-" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1;LOCK_TIMEOUT=10000";
	}

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(ShardTenancyAutoConfiguration.class, EndpointAutoConfiguration.class,
				WebEndpointAutoConfiguration.class))
		.withPropertyValues("shard-tenancy.directory.url=" + h2("directory"),
				"shard-tenancy.shards.shard-1.url=" + h2("shard-1"), "shard-tenancy.sync.interval=1h")
		.withBean("auditTransactionManager", DataSourceTransactionManager.class, () -> {
			JdbcDataSource dataSource = new JdbcDataSource();
			dataSource.setURL(h2("audit"));
			return new DataSourceTransactionManager(dataSource);
		});

	@Test
	@DisplayName("with the endpoint exposed: the recorder observes the tenancy and counts the commits of the "
			+ "application's transaction manager, read-only ones excepted")
	void recordedWhenExposed() {
		this.runner.withPropertyValues("management.endpoints.web.exposure.include=shardtenancy",
				"shard-tenancy.timeline.window=30s")
			.run((context) -> {
				assertThat(context).hasNotFailed().hasSingleBean(TimelineRecorder.class);
				TimelineRecorder recorder = context.getBean(TimelineRecorder.class);
				assertThat(recorder.windowSeconds()).isEqualTo(30);
				DataSourceTransactionManager manager = context.getBean(DataSourceTransactionManager.class);
				assertThat(manager.getTransactionExecutionListeners()).hasSize(2)
					.filteredOn(CommittedTransactionListener.class::isInstance)
					.hasSize(1);
				context.getBean(TenantAdmin.class).create("acme", "shard-1");
				TransactionTemplate writes = new TransactionTemplate(manager);
				TransactionTemplate reads = new TransactionTemplate(manager);
				reads.setReadOnly(true);
				long before = committed(recorder.timeline(30));
				TenantContext.runAs("acme", () -> {
					writes.executeWithoutResult((status) -> {
					});
					writes.executeWithoutResult((status) -> {
					});
					reads.executeWithoutResult((status) -> {
					});
				});
				assertThat(committed(recorder.timeline(30)) - before).isEqualTo(2);
				assertThat(context.getBean(ShardTenancyEndpoint.class).timeline("timeline", 30).windowSeconds())
					.isEqualTo(30);
				assertThat(context.getBean(ShardTenancy.class).removeObserver(recorder)).as("observer of the tenancy")
					.isTrue();
			});
	}

	@Test
	@DisplayName("with shard-tenancy.timeline.enabled=false: no recorder, and the endpoint answers 400 to a timeline "
			+ "read")
	void notRecordedWhenDisabled() {
		this.runner.withPropertyValues("management.endpoints.web.exposure.include=shardtenancy",
				"shard-tenancy.timeline.enabled=false")
			.run((context) -> {
				assertThat(context).hasNotFailed().doesNotHaveBean(TimelineRecorder.class);
				assertThat(context.getBean(DataSourceTransactionManager.class).getTransactionExecutionListeners())
					.singleElement()
					.isInstanceOf(CommittedTransactionListener.class);
				assertThatThrownBy(() -> context.getBean(ShardTenancyEndpoint.class).timeline("timeline", 10))
					.isInstanceOf(InvalidEndpointRequestException.class)
					.hasMessageContaining("shard-tenancy.timeline.enabled");
			});
	}

	@Test
	@DisplayName("without the endpoint exposed: no recorder")
	void notRecordedWhenTheEndpointIsNotAvailable() {
		this.runner.run((context) -> assertThat(context).hasNotFailed()
			.doesNotHaveBean(ShardTenancyEndpoint.class)
			.doesNotHaveBean(TimelineRecorder.class));
	}

	private static long committed(Timeline timeline) {
		return timeline.total().stream().mapToLong(Timeline.Second::committedPerSecond).sum();
	}

}
