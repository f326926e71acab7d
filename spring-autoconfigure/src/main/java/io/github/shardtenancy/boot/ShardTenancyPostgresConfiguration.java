package io.github.shardtenancy.boot;

import java.util.Properties;

import io.github.shardtenancy.postgresql.DirectoryWatcher;
import io.github.shardtenancy.postgresql.WatcherSettings;
import io.github.shardtenancy.ShardTenancy;
import org.springframework.boot.autoconfigure.condition.AnyNestedCondition;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnExpression;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Conditional;
import org.springframework.context.annotation.Configuration;

/**
 * Push invalidation for a PostgreSQL directory: a {@link DirectoryWatcher} that listens for the directory's
 * {@code NOTIFY} on a connection of its own and applies each change at once, with a slow safety poll for missed
 * notifications. Active when {@code hibernate-shard-tenancy-postgresql} is on the class path, the directory is a
 * PostgreSQL one ({@code shard-tenancy.directory.url} starts with {@code jdbc:postgresql:}, or a development service
 * supplies the directory: a {@link ShardTenancyDirectoryConnectionDetails} bean, which the Docker Compose factory makes
 * of {@code postgres} services only) and {@code shard-tenancy.sync.listen} is not {@code false}.
 */
@Configuration(proxyBeanMethods = false)
@ConditionalOnClass(DirectoryWatcher.class)
@ConditionalOnExpression("${shard-tenancy.sync.listen:true}")
@Conditional(ShardTenancyPostgresConfiguration.PostgresDirectory.class)
class ShardTenancyPostgresConfiguration {

	@Bean(destroyMethod = "close")
	@ConditionalOnMissingBean
	DirectoryWatcher shardTenancyDirectoryWatcher(ShardTenancy tenancy, ShardTenancyStart start,
			ShardTenancyProperties properties, ShardTenancyConnectionDetails connections) {
		ShardTenancyConnectionDetails.JdbcDatabase directory = connections.getDirectory();
		Properties connection = new Properties();
		if (directory.username() != null) {
			connection.setProperty("user", directory.username());
		}
		if (directory.password() != null) {
			connection.setProperty("password", directory.password());
		}
		DirectoryWatcher watcher = new DirectoryWatcher(tenancy.routeFeed(), directory.jdbcUrl(), connection,
				WatcherSettings.defaults()
					.withPollInterval(properties.getSync().getSafetyPoll())
					.withSetting("shard-tenancy.directory.url"));
		watcher.start();
		return watcher;
	}

	/** The directory is PostgreSQL: by its URL property, or a development service supplies it. */
	static final class PostgresDirectory extends AnyNestedCondition {

		PostgresDirectory() {
			super(ConfigurationPhase.REGISTER_BEAN);
		}

		@ConditionalOnExpression("'${shard-tenancy.directory.url:}'.startsWith('jdbc:postgresql:')")
		static final class PostgresUrl {

		}

		@ConditionalOnBean(ShardTenancyDirectoryConnectionDetails.class)
		static final class DirectoryService {

		}

	}

}
