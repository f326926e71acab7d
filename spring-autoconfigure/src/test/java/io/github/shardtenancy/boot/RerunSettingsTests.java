package io.github.shardtenancy.boot;

import java.util.UUID;

import io.github.shardtenancy.boot.retry.CommittedTransactionListener;
import io.github.shardtenancy.boot.retry.ShardTenancyRetry;
import org.h2.jdbcx.JdbcDataSource;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;

import static org.assertj.core.api.Assertions.assertThat;

/** The re-run opt-in property and the commit listener's installation on transaction managers. */
@DisplayName("Re-run safety settings")
class RerunSettingsTests {

	private static String h2(String name) {
		return "jdbc:h2:mem:" + name + "-" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1;LOCK_TIMEOUT=10000";
	}

	private static ApplicationContextRunner runner() {
		return new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(ShardTenancyAutoConfiguration.class))
			.withPropertyValues("shard-tenancy.directory.url=" + h2("directory"),
					"shard-tenancy.shards.shard-1.url=" + h2("shard-1"), "shard-tenancy.sync.interval=1h");
	}

	private static DataSourceTransactionManager auditTransactionManager() {
		JdbcDataSource dataSource = new JdbcDataSource();
		dataSource.setURL(h2("audit"));
		return new DataSourceTransactionManager(dataSource);
	}

	@Test
	@DisplayName("shard-tenancy.retry.safe-to-rerun is false by default")
	void notSafeToRerunByDefault() {
		runner().run((context) -> assertThat(context.getBean(ShardTenancyRetry.class).isSafeToRerun()).isFalse());
	}

	@Test
	@DisplayName("shard-tenancy.retry.safe-to-rerun=true makes the retry re-run every body")
	void safeToRerunApplicationWide() {
		runner().withPropertyValues("shard-tenancy.retry.safe-to-rerun=true")
			.run((context) -> assertThat(context.getBean(ShardTenancyRetry.class).isSafeToRerun()).isTrue());
	}

	@Test
	@DisplayName("a transaction manager the application defines gets the commit listener exactly once")
	void listenerOnApplicationTransactionManager() {
		runner().withBean("auditTransactionManager", DataSourceTransactionManager.class,
				RerunSettingsTests::auditTransactionManager)
			.run((context) -> assertThat(
					context.getBean(DataSourceTransactionManager.class).getTransactionExecutionListeners())
				.singleElement()
				.isInstanceOf(CommittedTransactionListener.class));
	}

}
