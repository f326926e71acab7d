package io.github.shardtenancy;

import java.net.ServerSocket;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.UUID;

import com.zaxxer.hikari.HikariConfig;
import io.github.shardtenancy.liquibase.ShardTenancyMigrations;
import io.github.shardtenancy.testing.ShardTenancyFixture;
import org.h2.tools.Server;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * A configured shard whose database does not answer at start-up, on H2: shard-2 is an H2 TCP server that is not
 * running yet. With the default policy the build fails naming the shard, its URL setting and the policy; with
 * {@link UnreachableShardPolicy#START_WITHOUT} the tenancy starts on shard-1, shard-2's tenants get
 * {@link ShardUnavailableException}, and once the server runs shard-2 is migrated, its fence installed and its tenant
 * served, without a restart.
 */
@DisplayName("A shard that cannot be reached at start-up: fail, or start without it and add it when it answers")
class UnreachableShardTest {

	private final String name = "unreachable-" + UUID.randomUUID().toString().substring(0, 8);

	private final int port = freePort();

	private HikariConfig pool(String url) {
		HikariConfig config = new HikariConfig();
		config.setJdbcUrl(url);
		config.setMaximumPoolSize(2);
		config.setConnectionTimeout(2000);
		return config;
	}

	private ShardTenancyBuilder builder() {
		List<String> changelogs = List.of(ShardTenancyFixture.CHANGELOG);
		return ShardTenancy.builder()
			.directory(pool("jdbc:h2:mem:" + this.name + "-directory;DB_CLOSE_DELAY=-1"))
			.shard("shard-1", pool("jdbc:h2:mem:" + this.name + "-shard-1;DB_CLOSE_DELAY=-1"))
			.shard("shard-2", pool("jdbc:h2:tcp://localhost:" + this.port + "/mem:" + this.name
					+ "-shard-2;DB_CLOSE_DELAY=-1"))
			.tenantTables(ShardTenancyFixture.TABLES)
			.referenceTables(List.of("plain_table"))
			.shardMigrator((shardId, dataSource, dialect) -> ShardTenancyMigrations.migrateShard(dataSource, shardId,
					changelogs))
			.actor("unreachable@test");
	}

	@Test
	@DisplayName("default: the build fails naming the shard, its URL setting and the policy")
	void failsByDefault() {
		assertThatThrownBy(() -> builder().build()).isInstanceOf(ShardTenancyConfigurationException.class)
			.hasMessageContaining("Shard 'shard-2' cannot be reached at start-up")
			.hasMessageContaining("shard-tenancy.unreachable-shard-policy=start-without")
			.satisfies((ex) -> assertThat(((ShardTenancyConfigurationException) ex).setting())
				.isEqualTo("shard-tenancy.shards.shard-2.url"))
			.satisfies((ex) -> assertThat(((ShardTenancyConfigurationException) ex).shardId()).isEqualTo("shard-2"));
	}

	@Test
	@DisplayName("start-without: shard-1 serves, shard-2's tenant is unavailable; once shard-2 answers it is migrated, "
			+ "fenced and serves its tenant")
	void startsWithoutAndAddsItWhenItAnswers() throws Exception {
		// An earlier run with both shards up placed globex on shard-2.
		Server server = Server.createTcpServer("-tcpPort", String.valueOf(this.port), "-ifNotExists").start();
		try (ShardTenancy earlier = builder().build()) {
			ShardTenancyMigrations.migrateDirectory(earlier.directoryDataSource());
			for (String shardId : earlier.topology().shardIds()) {
				ShardTenancyMigrations.migrateShard(earlier.topology().dataSource(shardId), shardId,
						List.of(ShardTenancyFixture.CHANGELOG));
			}
			earlier.start();
			earlier.admin().create("acme", "shard-1");
			earlier.admin().create("hooli", "shard-1");
			earlier.admin().create("globex", "shard-2");
			insertNote(earlier, "globex", "before");
		}
		finally {
			server.stop();
		}
		try (ShardTenancy tenancy = builder().unreachableShards(UnreachableShardPolicy.START_WITHOUT,
				Duration.ofMillis(200)).build()) {
			assertThat(tenancy.topology().shardIds()).containsExactly("shard-1");
			ShardTenancyMigrations.migrateShard(tenancy.topology().dataSource("shard-1"), "shard-1",
					List.of(ShardTenancyFixture.CHANGELOG));
			tenancy.start();
			insertNote(tenancy, "acme", "served");
			assertThatThrownBy(() -> insertNote(tenancy, "globex", "too early"))
				.isInstanceOf(ShardUnavailableException.class)
				.hasMessageContaining("shard-2")
				.hasMessageContaining("could not be reached at start-up");
			// No tenant is placed on it: asked for, refused; by the policy (least loaded: shard-2), not chosen.
			assertThatThrownBy(() -> tenancy.admin().create("initech", "shard-2"))
				.isInstanceOf(ShardUnavailableException.class);
			assertThat(tenancy.admin().create("initech").shardId()).isEqualTo("shard-1");
			// A reference write reaches every shard or none: refused while shard-2 has not answered.
			List<ReferenceStatement> label = List.of(
					ReferenceStatement.of("INSERT INTO plain_table (id, label) VALUES (?, ?)", 1, "one"));
			assertThatThrownBy(() -> tenancy.referenceTables().write(label))
				.isInstanceOf(ShardTenancyException.class)
				.hasMessageContaining("shard-2");

			server = Server.createTcpServer("-tcpPort", String.valueOf(this.port), "-ifNotExists").start();
			try {
				await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(100))
					.until(() -> tenancy.topology().contains("shard-2"));
				insertNote(tenancy, "globex", "served later");
				assertThat(notes(tenancy, "shard-2", "globex")).isEqualTo(2);
				// The fence is installed: a row of another tenant is refused on globex's connection.
				assertThatThrownBy(() -> TenantContext.runAs("globex", () -> insert(tenancy, "acme", "misplaced")))
					.hasRootCauseInstanceOf(SQLException.class);
				assertThat(notes(tenancy, "shard-2", "acme")).isZero();
				assertThat(notes(tenancy, "shard-1", "acme")).isEqualTo(1);
				tenancy.referenceTables().write(label);
				for (String shardId : List.of("shard-1", "shard-2")) {
					try (Connection c = tenancy.topology().dataSource(shardId).getConnection();
							ResultSet rs = c.createStatement().executeQuery("SELECT COUNT(*) FROM plain_table")) {
						rs.next();
						assertThat(rs.getLong(1)).as(shardId).isOne();
					}
				}
			}
			finally {
				server.stop();
			}
		}
	}

	private static void insertNote(ShardTenancy tenancy, String tenant, String body) {
		TenantContext.runAs(tenant, () -> insert(tenancy, tenant, body));
	}

	private static void insert(ShardTenancy tenancy, String tenant, String body) {
		try (Connection c = tenancy.dataSource().getConnection();
				PreparedStatement ps = c.prepareStatement("INSERT INTO note (id, tenant_id, body) VALUES (?, ?, ?)")) {
			ps.setObject(1, UUID.randomUUID());
			ps.setString(2, tenant);
			ps.setString(3, body);
			ps.executeUpdate();
		}
		catch (SQLException ex) {
			throw new IllegalStateException(ex);
		}
	}

	private static long notes(ShardTenancy tenancy, String shardId, String tenant) throws SQLException {
		try (Connection c = tenancy.topology().dataSource(shardId).getConnection();
				PreparedStatement ps = c.prepareStatement("SELECT COUNT(*) FROM note WHERE tenant_id = ?")) {
			ps.setString(1, tenant);
			try (ResultSet rs = ps.executeQuery()) {
				rs.next();
				return rs.getLong(1);
			}
		}
	}

	private static int freePort() {
		try (ServerSocket socket = new ServerSocket(0)) {
			return socket.getLocalPort();
		}
		catch (java.io.IOException ex) {
			throw new IllegalStateException(ex);
		}
	}

}
