package io.github.shardtenancy.boot;

import java.util.Map;
import java.util.Objects;

import org.jspecify.annotations.Nullable;
import org.springframework.boot.autoconfigure.service.connection.ConnectionDetails;

/**
 * Where the directory and the shards are: the JDBC URL and credentials of each database the auto-configuration
 * connects to. The auto-configuration uses a bean of this type when the application defines one, instead of
 * {@code shard-tenancy.directory.url}, {@code shard-tenancy.shards.<id>.url} and their users and passwords; the other
 * settings of a shard (pool size, region, connection timeout) still come from {@code shard-tenancy.shards.<id>.*}.
 * Without one, the default is built from those properties, overlaid with the development services' databases
 * ({@link ShardTenancyDirectoryConnectionDetails} and {@link ShardConnectionDetails} beans, which Testcontainers'
 * {@code @ServiceConnection} and Boot's Docker Compose support contribute).
 *
 * <p>Read once, when the tenancy is built. Implementations need not be thread-safe.
 * @see <a href="https://docs.spring.io/spring-boot/reference/features/dev-services.html">Spring Boot: development
 * services</a>
 */
public interface ShardTenancyConnectionDetails extends ConnectionDetails {

	/**
	 * @return the directory database; never {@code null}
	 */
	JdbcDatabase getDirectory();

	/**
	 * @return the shard databases by shard id, in the order the shards are added to the tenancy; never {@code null},
	 * empty only when no shard is configured (the start then fails naming {@code shard-tenancy.shards})
	 */
	Map<String, JdbcDatabase> getShards();

	/**
	 * One database: a JDBC URL and the user to connect as.
	 * @param jdbcUrl the JDBC URL; never {@code null}, blank when unknown (the start then fails naming the property
	 * that would give it)
	 * @param username the database user; {@code null} for the driver's default
	 * @param password the user's password; {@code null} for none
	 */
	record JdbcDatabase(String jdbcUrl, @Nullable String username, @Nullable String password) {

		/**
		 * @throws NullPointerException if {@code jdbcUrl} is {@code null}
		 */
		public JdbcDatabase {
			Objects.requireNonNull(jdbcUrl, "jdbcUrl");
		}

		@Override
		public String toString() {
			return "JdbcDatabase[jdbcUrl=" + this.jdbcUrl + ", username=" + this.username + "]";
		}

	}

}
