package io.github.shardtenancy.internal.ids;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.HashSet;
import java.util.Set;
import java.util.UUID;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.github.shardtenancy.IdCheck;
import io.github.shardtenancy.IdGenerationException;
import io.github.shardtenancy.IdSettings;
import io.github.shardtenancy.liquibase.ShardTenancyMigrations;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * The generator id leases of {@link ShardIds} on a real H2 directory (migrated by the directory changelog), in real
 * time with short leases: two instances never hold the same generator id, a lease is renewed in the background,
 * ids stop when it cannot be renewed before it expires and resume once the directory answers, a generator id is
 * taken over only past the ids its previous holder issued (whatever the clocks), and a clock that steps back is
 * waited for, or refused.
 */
@DisplayName("@ShardSafeId leases: exclusive generator ids, renewal, expiry, take-over and clocks that step back")
class GeneratorLeaseTest {

	private static final IdSettings SHORT = new IdSettings(IdSettings.DEFAULT_EPOCH, Duration.ofMillis(300),
			Duration.ofMillis(100));

	private HikariDataSource directory;

	@BeforeEach
	void directory() {
		HikariConfig config = new HikariConfig();
		config.setJdbcUrl("jdbc:h2:mem:lease-" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1");
		config.setMaximumPoolSize(4);
		this.directory = new HikariDataSource(config);
		ShardTenancyMigrations.migrateDirectory(this.directory);
	}

	@AfterEach
	void close() {
		this.directory.close();
	}

	private ShardIds ids(IdSettings settings, Clock clock) {
		return new ShardIds(this.directory, settings, IdCheck.FAIL, clock, null, "lease@test");
	}

	@Test
	@DisplayName("two live instances hold two generator ids, and their ids never meet")
	void twoInstancesTwoGeneratorIds() {
		try (ShardIds first = ids(SHORT, Clock.systemUTC()); ShardIds second = ids(SHORT, Clock.systemUTC())) {
			first.start();
			second.start();
			assertThat(first.generatorId()).hasValue(0);
			assertThat(second.generatorId()).hasValue(1);
			Set<Long> seen = new HashSet<>();
			for (int i = 0; i < 20_000; i++) {
				long a = first.next();
				long b = second.next();
				assertThat(IdSettings.generatorOf(a)).isZero();
				assertThat(IdSettings.generatorOf(b)).isOne();
				assertThat(seen.add(a) && seen.add(b)).isTrue();
			}
		}
	}

	@Test
	@DisplayName("an instance with another epoch is refused: its ids could repeat ids issued under the recorded one")
	void anotherEpochIsRefused() {
		try (ShardIds first = ids(SHORT, Clock.systemUTC())) {
			first.start();
			first.next();
		}
		IdSettings later = new IdSettings(Instant.parse("2025-01-01T00:00:00Z"), SHORT.lease(),
				SHORT.maxClockBackwards());
		try (ShardIds second = ids(later, Clock.systemUTC())) {
			assertThatThrownBy(second::start).isInstanceOf(IdGenerationException.class)
				.hasMessageContaining("shard-tenancy.ids.epoch")
				.hasMessageContaining(IdSettings.DEFAULT_EPOCH.toString());
			assertThat(second.generatorId()).as("no generator id leased").isEmpty();
			assertThatThrownBy(second::next).isInstanceOf(IdGenerationException.class);
		}
		try (ShardIds third = ids(SHORT, Clock.systemUTC())) {
			third.start();
			assertThat(third.generatorId()).as("the recorded epoch still leases").hasValue(0);
		}
	}

	@Test
	@DisplayName("ids grow with time, carry their timestamp, and exceed the ids an IDENTITY column hands out")
	void layout() {
		try (ShardIds ids = ids(SHORT, Clock.systemUTC())) {
			ids.start();
			Instant before = Instant.now().minusMillis(1);
			long first = ids.next();
			long second = ids.next();
			assertThat(second).isGreaterThan(first);
			assertThat(SHORT.timestampOf(first)).isAfterOrEqualTo(before.truncatedTo(java.time.temporal.ChronoUnit.MILLIS))
				.isBeforeOrEqualTo(Instant.now());
			assertThat(first).as("above the floor of ids generated after 2025-01-01")
				.isGreaterThan(Duration.between(IdSettings.DEFAULT_EPOCH, Instant.parse("2025-01-01T00:00:00Z")).toMillis() << 22);
		}
	}

	@Test
	@DisplayName("the background renewal keeps the lease for many lease periods; it is released on close")
	void renewedInTheBackground() throws SQLException {
		try (ShardIds ids = ids(SHORT, Clock.systemUTC())) {
			ids.start();
			long leasedUntil = expiresAt(0);
			await().during(Duration.ofMillis(1200)).atMost(Duration.ofSeconds(5))
				.until(() -> ids.next() > 0 && ids.generatorId().isPresent());
			assertThat(expiresAt(0)).as("renewed").isGreaterThan(leasedUntil);
			ids.close();
			assertThat(owner(0)).as("released").isNull();
			assertThatThrownBy(ids::next).isInstanceOf(IdGenerationException.class).hasMessageContaining("closed");
		}
	}

	@Test
	@DisplayName("a lease that cannot be renewed stops the ids once it expires, and they resume when the directory answers")
	void expiredLeaseStopsIds() throws SQLException {
		try (ShardIds ids = ids(SHORT, Clock.systemUTC())) {
			ids.start();
			ids.next();
			execute("ALTER TABLE shard_id_generator RENAME TO shard_id_generator_away"); // the renewal now fails
			await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> assertThatThrownBy(ids::next)
				.isInstanceOf(IdGenerationException.class)
				.hasMessageContaining("lease of generator id 0 expired")
				.hasMessageContaining("could not be reached"));
			execute("ALTER TABLE shard_id_generator_away RENAME TO shard_id_generator");
			await().atMost(Duration.ofSeconds(5)).until(() -> ids.generatorId().isPresent());
			assertThat(IdSettings.generatorOf(ids.next())).isZero();
		}
	}

	@Test
	@DisplayName("a lease taken over by another instance after it expired is given up, and another generator id leased")
	void takenOver() throws SQLException {
		try (ShardIds ids = ids(SHORT, Clock.systemUTC())) {
			ids.start();
			execute("UPDATE shard_id_generator SET owner = 'thief' WHERE generator_id = 0");
			await().atMost(Duration.ofSeconds(5)).until(() -> ids.generatorId().orElse(-1) == 1);
			assertThat(IdSettings.generatorOf(ids.next())).isOne();
		}
	}

	@Test
	@DisplayName("a generator id is reused only past the ids of its previous holder, even when that one's clock ran ahead")
	void takeOverStartsAboveThePreviousHolder() {
		Clock ahead = Clock.offset(Clock.systemUTC(), Duration.ofSeconds(5));
		long last;
		try (ShardIds first = ids(SHORT, ahead)) {
			first.start();
			last = first.next();
		}
		// Released, but its ids carry timestamps 5 s ahead of this clock: generator 0 is not free yet here.
		try (ShardIds second = ids(SHORT, Clock.systemUTC())) {
			second.start();
			assertThat(second.generatorId()).hasValue(1);
		}
		// A clock further ahead may take it over, and starts above the previous holder's last id.
		try (ShardIds third = ids(SHORT, Clock.offset(Clock.systemUTC(), Duration.ofSeconds(6)))) {
			third.start();
			assertThat(third.generatorId()).hasValue(0);
			assertThat(third.next()).isGreaterThan(last);
		}
	}

	@Test
	@DisplayName("a clock that steps back a little is waited for; further than tolerated, the generator refuses")
	void clockBackwards() {
		MovableClock clock = new MovableClock();
		try (ShardIds ids = ids(SHORT, clock)) {
			ids.start();
			long before = ids.next();
			clock.offset = Duration.ofMillis(-30); // within the 100 ms tolerated: waits until the clock passes the last id
			long after = ids.next();
			assertThat(after).isGreaterThan(before);
			assertThat(SHORT.timestampOf(after)).as("never below the last id").isAfterOrEqualTo(SHORT.timestampOf(before));
			clock.offset = Duration.ofSeconds(-5);
			assertThatThrownBy(ids::next).isInstanceOf(IdGenerationException.class)
				.hasMessageContaining("clock moved backwards");
			clock.offset = Duration.ZERO;
			assertThat(ids.next()).isGreaterThan(after);
		}
	}

	/** The system clock with an offset a test can change. */
	static final class MovableClock extends Clock {

		volatile Duration offset = Duration.ZERO;

		@Override
		public ZoneOffset getZone() {
			return ZoneOffset.UTC;
		}

		@Override
		public Clock withZone(java.time.ZoneId zone) {
			throw new UnsupportedOperationException();
		}

		@Override
		public Instant instant() {
			return Instant.now().plus(this.offset);
		}

	}

	private void execute(String sql) throws SQLException {
		try (Connection c = this.directory.getConnection(); Statement s = c.createStatement()) {
			s.execute(sql);
		}
	}

	private long expiresAt(int generatorId) throws SQLException {
		return Long.parseLong(column("expires_at", generatorId));
	}

	private String owner(int generatorId) throws SQLException {
		return column("owner", generatorId);
	}

	private String column(String column, int generatorId) throws SQLException {
		try (Connection c = this.directory.getConnection();
				PreparedStatement ps = c.prepareStatement(
						"SELECT " + column + " FROM shard_id_generator WHERE generator_id = ?")) {
			ps.setInt(1, generatorId);
			try (ResultSet rs = ps.executeQuery()) {
				assertThat(rs.next()).isTrue();
				return rs.getString(1);
			}
		}
	}

}
