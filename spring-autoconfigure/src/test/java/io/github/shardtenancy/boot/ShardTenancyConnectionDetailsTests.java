package io.github.shardtenancy.boot;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.util.Map;
import java.util.UUID;

import com.zaxxer.hikari.HikariDataSource;
import io.github.shardtenancy.ShardTenancyConfigurationException;
import io.github.shardtenancy.ShardTopology;
import io.github.shardtenancy.TenantAdmin;
import io.github.shardtenancy.TenantContext;
import io.github.shardtenancy.boot.ShardTenancyConnectionDetails.JdbcDatabase;
import io.github.shardtenancy.boot.testapp.Note;
import io.github.shardtenancy.boot.testapp.NoteRepository;
import io.github.shardtenancy.boot.testapp.TestApplication;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link ShardTenancyConnectionDetails}: an application's own bean replaces the URLs and credentials of the
 * properties, and the development services' {@link ShardTenancyDirectoryConnectionDetails} and
 * {@link ShardConnectionDetails} beans are laid over them, on real H2 databases.
 */
@DisplayName("Connection details")
class ShardTenancyConnectionDetailsTests {

	/** A URL no connection can be opened on: using it fails the start. */
	private static final String UNREACHABLE = "jdbc:h2:file:/nonexistent-shard-tenancy/db;IFEXISTS=TRUE";

	private static String h2(String name) {
		return "jdbc:h2:mem:" + name + "-" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1;LOCK_TIMEOUT=10000";
	}

	private static final String DIRECTORY = h2("details-directory");

	private static final String SHARD_1 = h2("details-shard-1");

	private static final String SHARD_2 = h2("details-shard-2");

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(ShardTenancyAutoConfiguration.class))
		.withPropertyValues("shard-tenancy.sync.interval=1h");

	@Test
	@DisplayName("an application's ShardTenancyConnectionDetails bean routes tenants to its databases; the URLs of the "
			+ "properties are not used")
	void applicationBeanReplacesTheProperties() throws Exception {
		try (ConfigurableApplicationContext context = new SpringApplicationBuilder(TestApplication.class,
				ApplicationDetails.class)
			.properties("shard-tenancy.directory.url=" + UNREACHABLE, "shard-tenancy.shards.shard-1.url=" + UNREACHABLE,
					"shard-tenancy.liquibase.shard-changelogs=db/test-shard.xml", "shard-tenancy.sync.interval=1h",
					"spring.main.web-application-type=none")
			.run()) {
			assertThat(context.getBean(ShardTenancyConnectionDetails.class))
				.isSameAs(context.getBean("applicationDetails"));
			assertThat(context.getBean(ShardTopology.class).shardIds()).containsExactlyInAnyOrder("shard-1", "shard-2");
			context.getBean(TenantAdmin.class).create("acme", "shard-2");
			NoteRepository notes = context.getBean(NoteRepository.class);

			Note saved = TenantContext.callAs("acme", () -> notes.save(new Note("first")));

			assertThat(tenantOf(SHARD_2, saved.getId())).isEqualTo("acme");
			assertThat(tenantOf(SHARD_1, saved.getId())).isNull();
			long count = TenantContext.callAs("acme", notes::count);
			assertThat(count).isOne();
		}
	}

	@Test
	@DisplayName("development services' databases replace the configured URLs and add their shards; the other shard "
			+ "settings stay the properties'")
	void serviceDetailsAreLaidOverTheProperties() {
		this.runner.withUserConfiguration(ServiceDetails.class)
			.withPropertyValues("shard-tenancy.directory.url=" + UNREACHABLE,
					"shard-tenancy.shards.shard-1.url=" + UNREACHABLE,
					"shard-tenancy.shards.shard-1.maximum-pool-size=3")
			.run((context) -> {
				assertThat(context).hasNotFailed();
				ShardTenancyConnectionDetails details = context.getBean(ShardTenancyConnectionDetails.class);
				assertThat(details).isInstanceOf(PropertiesShardTenancyConnectionDetails.class);
				assertThat(details.getDirectory().jdbcUrl()).isEqualTo(DIRECTORY);
				assertThat(details.getShards().keySet()).containsExactly("shard-1", "shard-2");
				ShardTopology topology = context.getBean(ShardTopology.class);
				HikariDataSource shard1 = (HikariDataSource) topology.dataSource("shard-1");
				assertThat(shard1.getJdbcUrl()).isEqualTo(SHARD_1);
				assertThat(shard1.getMaximumPoolSize()).isEqualTo(3);
				assertThat(((HikariDataSource) topology.dataSource("shard-2")).getJdbcUrl()).isEqualTo(SHARD_2);
				assertThat(context.getBean(TenantAdmin.class).create("beta", "shard-2").shardId()).isEqualTo("shard-2");
			});
	}

	@Test
	@DisplayName("without services or an own bean, the details are the properties")
	void propertiesByDefault() {
		String directory = h2("own-directory");
		String shard = h2("own-shard");
		this.runner
			.withPropertyValues("shard-tenancy.directory.url=" + directory, "shard-tenancy.directory.username=sa",
					"shard-tenancy.shards.shard-1.url=" + shard, "shard-tenancy.shards.shard-1.password=secret")
			.run((context) -> {
				assertThat(context).hasNotFailed();
				ShardTenancyConnectionDetails details = context.getBean(ShardTenancyConnectionDetails.class);
				assertThat(details.getDirectory()).isEqualTo(new JdbcDatabase(directory, "sa", null));
				assertThat(details.getShards()).containsExactly(Map.entry("shard-1", new JdbcDatabase(shard, null,
						"secret")));
				assertThat(details.getDirectory().toString()).doesNotContain("secret");
			});
	}

	@Test
	@DisplayName("two directory services fail the start naming shard-tenancy.directory.url")
	void twoDirectoriesFailTheStart() {
		this.runner.withUserConfiguration(ServiceDetails.class, SecondDirectory.class).run((context) -> {
			assertThat(context).hasFailed();
			assertThat(context.getStartupFailure()).rootCause()
				.isInstanceOf(ShardTenancyConfigurationException.class)
				.hasMessageContaining("2 directory service connections");
			assertThat(((ShardTenancyConfigurationException) rootCause(context.getStartupFailure())).setting())
				.isEqualTo("shard-tenancy.directory.url");
		});
	}

	@Test
	@DisplayName("two services of one shard id fail the start naming the shard")
	void twoServicesOfOneShardFailTheStart() {
		this.runner.withUserConfiguration(ServiceDetails.class, SecondShard2.class).run((context) -> {
			assertThat(context).hasFailed();
			assertThat(context.getStartupFailure()).rootCause()
				.isInstanceOf(ShardTenancyConfigurationException.class)
				.hasMessageContaining("shard 'shard-2'");
		});
	}

	private static Throwable rootCause(Throwable failure) {
		Throwable cause = failure;
		while (cause.getCause() != null) {
			cause = cause.getCause();
		}
		return cause;
	}

	/** @return the tenant of the note with this id in the database at this URL, {@code null} if it has none */
	private static String tenantOf(String url, UUID id) throws Exception {
		try (Connection c = DriverManager.getConnection(url);
				PreparedStatement ps = c.prepareStatement("SELECT tenant_id FROM note WHERE id = ?")) {
			ps.setObject(1, id);
			try (ResultSet rs = ps.executeQuery()) {
				return rs.next() ? rs.getString(1) : null;
			}
		}
	}

	@Configuration(proxyBeanMethods = false)
	static class ApplicationDetails {

		@Bean
		ShardTenancyConnectionDetails applicationDetails() {
			return new ShardTenancyConnectionDetails() {

				@Override
				public JdbcDatabase getDirectory() {
					return new JdbcDatabase(DIRECTORY, null, null);
				}

				@Override
				public Map<String, JdbcDatabase> getShards() {
					return Map.of("shard-1", new JdbcDatabase(SHARD_1, null, null), "shard-2",
							new JdbcDatabase(SHARD_2, null, null));
				}

			};
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class ServiceDetails {

		@Bean
		ShardTenancyDirectoryConnectionDetails directoryService() {
			return () -> new JdbcDatabase(DIRECTORY, null, null);
		}

		@Bean
		ShardConnectionDetails shard1Service() {
			return shard("shard-1", SHARD_1);
		}

		@Bean
		ShardConnectionDetails shard2Service() {
			return shard("shard-2", SHARD_2);
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class SecondDirectory {

		@Bean
		ShardTenancyDirectoryConnectionDetails secondDirectoryService() {
			return () -> new JdbcDatabase(h2("other-directory"), null, null);
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class SecondShard2 {

		@Bean
		ShardConnectionDetails secondShard2Service() {
			return shard("shard-2", h2("other-shard-2"));
		}

	}

	private static ShardConnectionDetails shard(String id, String url) {
		return new ShardConnectionDetails() {

			@Override
			public String getShardId() {
				return id;
			}

			@Override
			public JdbcDatabase getDatabase() {
				return new JdbcDatabase(url, null, null);
			}

		};
	}

}
