package io.github.shardtenancy.internal.ids;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

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

/**
 * The {@code Integer} id blocks of {@link ShardIds} on a real H2 directory (migrated by the directory changelog): many
 * threads of two instances never get the same id, one counter per table created on first use, one counter update per
 * block, a stopped instance's unused ids are skipped and never handed out, the counter's end at
 * {@link Integer#MAX_VALUE}, and a directory that cannot be reached.
 */
@DisplayName("@ShardSafeId Integer id blocks: unique across threads and instances, never reused, bounded")
class IdBlocksTest {

	private HikariDataSource directory;

	@BeforeEach
	void directory() {
		HikariConfig config = new HikariConfig();
		config.setJdbcUrl("jdbc:h2:mem:blocks-" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1");
		config.setMaximumPoolSize(4);
		this.directory = new HikariDataSource(config);
		ShardTenancyMigrations.migrateDirectory(this.directory);
	}

	@AfterEach
	void close() {
		this.directory.close();
	}

	private ShardIds ids(int blockSize) {
		IdSettings settings = new IdSettings(IdSettings.DEFAULT_EPOCH, Duration.ofSeconds(60), Duration.ofSeconds(1),
				blockSize);
		return new ShardIds(this.directory, settings, IdCheck.FAIL, Clock.systemUTC(), null, "blocks@test");
	}

	private long counter() throws SQLException {
		return counter("integer").orElseThrow();
	}

	private OptionalLong counter(String name) throws SQLException {
		try (Connection c = this.directory.getConnection();
				PreparedStatement ps = c.prepareStatement("SELECT next_id FROM shard_id_block WHERE counter_name = ?")) {
			ps.setString(1, name);
			try (ResultSet rs = ps.executeQuery()) {
				return rs.next() ? OptionalLong.of(rs.getLong(1)) : OptionalLong.empty();
			}
		}
	}

	private void setCounter(long value) throws SQLException {
		try (Connection c = this.directory.getConnection();
				PreparedStatement ps = c.prepareStatement(
						"INSERT INTO shard_id_block (counter_name, next_id) VALUES ('integer', ?)")) {
			ps.setLong(1, value);
			assertThat(ps.executeUpdate()).isEqualTo(1);
		}
	}

	@Test
	@DisplayName("eight threads on each of two instances: 8000 distinct ids, the counter created once and moved by whole blocks only")
	void concurrentThreadsOfTwoInstances() throws Exception {
		assertThat(counter("integer")).as("no counter before its first use").isEmpty();
		try (ShardIds first = ids(7); ShardIds second = ids(7)) {
			ExecutorService threads = Executors.newFixedThreadPool(16);
			try {
				CountDownLatch start = new CountDownLatch(1);
				List<Future<List<Integer>>> results = new ArrayList<>();
				for (ShardIds instance : List.of(first, second)) {
					for (int t = 0; t < 8; t++) {
						results.add(threads.submit(() -> {
							// All threads at once: both instances find no row and insert it at the same time.
							start.await();
							List<Integer> got = new ArrayList<>();
							for (int i = 0; i < 500; i++) {
								got.add(instance.nextInt());
							}
							return got;
						}));
					}
				}
				start.countDown();
				List<Integer> ids = new ArrayList<>();
				for (Future<List<Integer>> result : results) {
					ids.addAll(result.get());
				}
				assertThat(ids).hasSize(8000);
				assertThat(new HashSet<>(ids)).as("distinct").hasSize(8000);
				assertThat(ids).allMatch((id) -> id >= 1);
				long counter = counter();
				assertThat((counter - 1) % 7).as("whole blocks of 7 leased").isZero();
				// Each instance has at most one block partly unused: no more blocks than needed were leased.
				assertThat(counter - 1).isBetween(8000L, 8000L + 2 * 7);
				assertThat(ids).allMatch((id) -> id < counter);
			}
			finally {
				threads.shutdownNow();
			}
		}
	}

	@Test
	@DisplayName("one directory round trip per block; a stopped instance's unused ids are skipped, never handed out")
	void oneRoundTripPerBlockAndNoReuse() throws SQLException {
		List<Integer> before = new ArrayList<>();
		try (ShardIds first = ids(10)) {
			before.add(first.nextInt());
			assertThat(counter()).isEqualTo(11);
			for (int i = 0; i < 9; i++) {
				before.add(first.nextInt());
			}
			assertThat(counter()).as("no round trip within the block").isEqualTo(11);
			before.add(first.nextInt());
			assertThat(counter()).as("one round trip for the next block").isEqualTo(21);
		}
		assertThat(before).containsExactly(1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11);
		try (ShardIds restarted = ids(10)) {
			assertThat(restarted.nextInt()).as("ids 12 to 20 of the stopped instance are skipped").isEqualTo(21);
		}
	}

	@Test
	@DisplayName("one counter per table, created at 1 on first use: each table numbered 1, 2, 3... apart from the others and from the default counter")
	void oneCounterPerTable() throws Exception {
		try (ShardIds first = ids(2); ShardIds second = ids(2)) {
			assertThat(List.of(first.nextInt("owners"), first.nextInt("owners"), first.nextInt("owners")))
				.containsExactly(1, 2, 3);
			assertThat(List.of(first.nextInt("pets"), first.nextInt("PETS"), first.nextInt("Pets")))
				.as("a counter of its own, the table name case-insensitive").containsExactly(1, 2, 3);
			assertThat(first.nextInt()).as("the default counter is apart from the tables'").isEqualTo(1);
			assertThat(second.nextInt("owners")).as("another instance leases the next block of the table")
				.isEqualTo(5);
			assertThat(first.nextInt("owners")).as("the rest of the first instance's block").isEqualTo(4);
			assertThat(first.nextInt("owners")).isEqualTo(7);
		}
		assertThat(counter("owners")).hasValue(9);
		assertThat(counter("pets")).hasValue(5);
		assertThat(counter("integer")).hasValue(3);
		assertThat(counter("visits")).isEmpty();
		try (ShardIds ids = ids(2)) {
			assertThatThrownBy(() -> ids.nextInt(" ")).isInstanceOf(IllegalArgumentException.class);
			assertThatThrownBy(() -> ids.nextInt("t".repeat(129))).isInstanceOf(IllegalArgumentException.class)
				.hasMessageContaining("128");
		}
	}

	@Test
	@DisplayName("threads of two instances drawing from three tables at once: ids distinct within each table, each counter created once")
	void concurrentTablesOfTwoInstances() throws Exception {
		List<String> tables = List.of("owners", "pets", "visits");
		try (ShardIds first = ids(5); ShardIds second = ids(5)) {
			ExecutorService threads = Executors.newFixedThreadPool(12);
			try {
				CountDownLatch start = new CountDownLatch(1);
				Map<String, List<Future<List<Integer>>>> results = new HashMap<>();
				for (ShardIds instance : List.of(first, second)) {
					for (String table : tables) {
						for (int t = 0; t < 2; t++) {
							results.computeIfAbsent(table, (key) -> new ArrayList<>()).add(threads.submit(() -> {
								start.await();
								List<Integer> got = new ArrayList<>();
								for (int i = 0; i < 300; i++) {
									got.add(instance.nextInt(table));
								}
								return got;
							}));
						}
					}
				}
				start.countDown();
				for (String table : tables) {
					List<Integer> ids = new ArrayList<>();
					for (Future<List<Integer>> result : results.get(table)) {
						ids.addAll(result.get());
					}
					assertThat(new HashSet<>(ids)).as("distinct ids of " + table).hasSize(1200);
					long counter = counter(table).orElseThrow();
					assertThat(counter - 1).as("ids of " + table + " from its own counter only, whole blocks")
						.isBetween(1200L, 1200L + 2 * 5);
					assertThat(ids).allMatch((id) -> id >= 1 && id < counter);
				}
			}
			finally {
				threads.shutdownNow();
			}
		}
	}

	@Test
	@DisplayName("the ids end at Integer.MAX_VALUE with IdGenerationException, after a last, shorter block")
	void exhausted() throws SQLException {
		setCounter(Integer.MAX_VALUE - 2L);
		try (ShardIds ids = ids(100)) {
			assertThat(List.of(ids.nextInt(), ids.nextInt(), ids.nextInt())).containsExactly(Integer.MAX_VALUE - 2,
					Integer.MAX_VALUE - 1, Integer.MAX_VALUE);
			assertThatThrownBy(ids::nextInt).isInstanceOf(IdGenerationException.class)
				.hasMessageContaining("Integer.MAX_VALUE")
				.hasMessageContaining("Long");
			assertThatThrownBy(ids::nextInt).as("and stays so").isInstanceOf(IdGenerationException.class);
		}
		assertThat(counter()).isEqualTo(Integer.MAX_VALUE + 1L);
	}

	@Test
	@DisplayName("a directory that cannot be reached when a block is needed: IdGenerationException; the block in hand is still used")
	void directoryDown() {
		try (ShardIds ids = ids(3)) {
			assertThat(ids.nextInt()).isEqualTo(1);
			this.directory.close();
			assertThat(ids.nextInt()).isEqualTo(2);
			assertThat(ids.nextInt()).isEqualTo(3);
			assertThatThrownBy(ids::nextInt).isInstanceOf(IdGenerationException.class)
				.hasMessageContaining("directory could not be reached")
				.hasMessageContaining("shard_id_block");
		}
	}

	@Test
	@DisplayName("eight instances raising one counter to floors 40 and 500 at once while leasing: never moved backwards, ids distinct and above each instance's floor")
	void concurrentFloorsNeverMoveTheCounterBack() throws Exception {
		ExecutorService threads = Executors.newFixedThreadPool(8);
		try {
			CountDownLatch start = new CountDownLatch(1);
			Map<Long, List<Future<List<Integer>>>> results = new HashMap<>();
			for (int instance = 0; instance < 8; instance++) {
				long floor = (instance % 2 == 0) ? 40 : 500;
				// An instance of its own per thread (its own IdBlocks): each raises before its first block.
				IdBlocks blocks = new IdBlocks(this.directory, "seeded", 3, () -> floor);
				results.computeIfAbsent(floor, (key) -> new ArrayList<>()).add(threads.submit(() -> {
					start.await();
					List<Integer> got = new ArrayList<>();
					for (int i = 0; i < 60; i++) {
						got.add(blocks.next());
					}
					return got;
				}));
			}
			start.countDown();
			List<Integer> all = new ArrayList<>();
			for (Map.Entry<Long, List<Future<List<Integer>>>> byFloor : results.entrySet()) {
				for (Future<List<Integer>> result : byFloor.getValue()) {
					List<Integer> got = result.get();
					assertThat(got).as("above the floor the instance read").allMatch((id) -> id > byFloor.getKey());
					all.addAll(got);
				}
			}
			assertThat(new HashSet<>(all)).as("distinct").hasSize(8 * 60);
			long counter = counter("seeded").orElseThrow();
			assertThat(counter).isGreaterThan(500);
			assertThat(all).allMatch((id) -> id < counter);
		}
		finally {
			threads.shutdownNow();
		}
	}

	@Test
	@DisplayName("the floor: the row created above it, an existing counter raised but never lowered, the block in hand cut at it, no floor for the default counter")
	void floorRaisesOnly() throws SQLException {
		IdBlocks fresh = new IdBlocks(this.directory, "fresh", 10, () -> 6);
		assertThat(fresh.next()).as("created above the largest id 6").isEqualTo(7);
		assertThat(counter("fresh")).hasValue(17);
		IdBlocks lower = new IdBlocks(this.directory, "fresh", 10, () -> 3);
		assertThat(lower.next()).as("a lower floor leaves the counter alone").isEqualTo(17);
		assertThat(counter("fresh")).hasValue(27);
		fresh.raise(12);
		assertThat(counter("fresh")).as("at 27 already").hasValue(27);
		assertThat(fresh.next()).as("ids 8 to 12 of the block in hand [7, 17) dropped").isEqualTo(13);
		fresh.raise(40);
		assertThat(counter("fresh")).hasValue(41);
		assertThat(fresh.next()).as("the rest of the block dropped too").isEqualTo(41);
		IdBlocks empty = new IdBlocks(this.directory, "empty", 10, () -> 0);
		assertThat(empty.next()).as("a table with no rows starts at 1").isEqualTo(1);
		try (ShardIds ids = ids(10)) {
			assertThat(ids.nextInt("not_on_any_shard")).as("no shards: no floor").isEqualTo(1);
		}
		int[] asked = new int[1];
		IdBlocks failing = new IdBlocks(this.directory, "unreadable", 10, () -> {
			asked[0]++;
			throw new IdGenerationException("shard-9 down", null);
		});
		assertThatThrownBy(failing::next).isInstanceOf(IdGenerationException.class).hasMessageContaining("shard-9");
		assertThatThrownBy(failing::next).as("asked again, no id handed out").isInstanceOf(IdGenerationException.class);
		assertThat(asked[0]).isEqualTo(2);
		assertThat(counter("unreadable")).as("nothing leased").isEmpty();
	}

}
