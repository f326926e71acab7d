package io.github.shardtenancy.testing.move;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import javax.sql.DataSource;

import io.github.shardtenancy.IdCheck;
import io.github.shardtenancy.MoveResult;
import io.github.shardtenancy.MoveSettings;
import io.github.shardtenancy.MoveStep;
import io.github.shardtenancy.ShardTenancy;
import io.github.shardtenancy.TenantContext;
import io.github.shardtenancy.TenantTable;
import io.github.shardtenancy.liquibase.ShardTenancyMigrations;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Online moves of tenant tables with schema features the other move suites lack (issue 27, point 3), under writers
 * of the moving tenant and of a neighbour: {@code event}, whose primary key includes {@code kind}, which updates
 * change (on PostgreSQL a table partitioned by {@code kind}, so the row moves to another partition), with a check
 * constraint; {@code ticket}, whose key is an identity column ({@code GENERATED ALWAYS AS IDENTITY}, each shard's
 * values in a range of its own); {@code ticket_note}, with a second identity column outside the key and a foreign key
 * to {@code ticket} with {@code ON DELETE CASCADE} (on PostgreSQL {@code DEFERRABLE INITIALLY DEFERRED}: checked at
 * the commit of the mover's transactions too); {@code booking}, with a foreign key to {@code ticket} (on PostgreSQL also an
 * exclusion constraint). The move must be DONE, every committed row on the new owner exactly once with its last
 * committed values (compared by the database), nothing of the tenant left on the source, the neighbour untouched.
 * Subclasses give the databases and the database-specific parts of the schema.
 */
public abstract class SchemaFeaturesMoveScenarios {

	/** The moving tenant. */
	protected static final String TENANT = "acme";

	/** A tenant that stays on the source. */
	protected static final String NEIGHBOUR = "globex";

	/** The tenant tables, parents before children. */
	private static final List<String> TABLES = List.of("event", "ticket", "ticket_note", "booking");

	/** The values of {@code event.kind}. */
	protected static final String[] KINDS = { "a", "b", "c", "d" };

	/** What a deleted row maps to in the record of committed writes. */
	private static final String GONE = "-";

	private static final AtomicInteger RUNS = new AtomicInteger();

	/** Per tenant, what its writers committed: "table/key" -> the row's values joined by '/', or {@link #GONE}. */
	private final Map<String, Map<String, String>> committed = new ConcurrentHashMap<>();

	/** The started tenancy of the test, or {@code null}. */
	protected ShardTenancy tenancy;

	/** The owner's pools of the shards, {@code shard-1} (the source) and {@code shard-2}. */
	protected DataSource shard1;

	/** @see #shard1 */
	protected DataSource shard2;

	/**
	 * @param name a new database's name (an SQL identifier)
	 * @return a pool of at least 10 connections on the new, empty database, as its owner
	 * @throws SQLException if it cannot be created
	 */
	protected abstract DataSource createDatabase(String name) throws SQLException;

	/** @return the statements that create {@code event} (its columns, key and check constraint, see the class) */
	protected abstract List<String> eventTable();

	/**
	 * @return what follows {@code ticket_note}'s foreign key to {@code ticket} after {@code ON DELETE CASCADE}
	 * ({@code DEFERRABLE INITIALLY DEFERRED} where the database has it), or the empty string
	 */
	protected abstract String noteKeyDeferral();

	/** @return a constraint added to {@code booking} after its foreign key (an exclusion constraint), or empty */
	protected abstract String bookingConstraint();

	/**
	 * Runs before the schema is created on a shard, as its owner: extensions the schema needs.
	 * @param owner a statement of the owner on the shard
	 * @throws SQLException on a database error
	 */
	protected void beforeSchema(Statement owner) throws SQLException {
	}

	/**
	 * Runs after the schema is created on a shard, as its owner: grants for an application role.
	 * @param owner a statement of the owner on the shard
	 * @throws SQLException on a database error
	 */
	protected void afterSchema(Statement owner) throws SQLException {
	}

	/**
	 * @param database the database, as given to {@link #createDatabase}
	 * @param role the application role {@link #start(String)} was given
	 * @return a pool on the database as that role
	 */
	protected DataSource applicationPool(String database, String role) {
		throw new UnsupportedOperationException("no application role on this database");
	}

	/** Closes what {@link #createDatabase} and {@link #applicationPool} opened; called after each test. */
	protected abstract void closeDatabases();

	@AfterEach
	void stop() {
		if (this.tenancy != null) {
			this.tenancy.close();
			this.tenancy = null;
		}
		closeDatabases();
		this.committed.clear();
	}

	@Test
	@DisplayName("owner's role: DONE under writers; every committed row once on the new owner with its last values; "
			+ "nothing left on the source; the neighbour untouched")
	void movesUnderWriters() throws Exception {
		start(null);
		moveUnderWriters();
	}

	/**
	 * Creates the databases of a run and starts the tenancy: as the owner (role {@code null}), or once as the owner,
	 * which installs the fence, then as that role ({@link #applicationPool}). The tenants are created on
	 * {@code shard-1}.
	 * @param role the application role, or {@code null}
	 * @throws SQLException on a database error
	 */
	protected void start(String role) throws SQLException {
		int run = RUNS.incrementAndGet();
		DataSource directory = createDatabase("directory_" + run);
		ShardTenancyMigrations.migrateDirectory(directory);
		List<String> shards = List.of("shard1_" + run, "shard2_" + run);
		List<DataSource> owners = new ArrayList<>();
		for (int i = 0; i < shards.size(); i++) {
			DataSource owner = createDatabase(shards.get(i));
			owners.add(owner);
			ShardTenancyMigrations.migrateShard(owner, "shard-" + (i + 1), List.of());
			// Identity values drawn from a range of each shard's own (the target's sequence is left alone).
			long first = 1 + i * 1_000_000L;
			try (Connection c = owner.getConnection(); Statement s = c.createStatement()) {
				beforeSchema(s);
				for (String sql : eventTable()) {
					s.execute(sql);
				}
				s.execute("CREATE TABLE ticket (tenant_id VARCHAR(64) NOT NULL, id BIGINT GENERATED ALWAYS AS IDENTITY "
						+ "(START WITH " + first + "), title VARCHAR(64) NOT NULL, PRIMARY KEY (tenant_id, id))");
				s.execute("CREATE TABLE ticket_note (tenant_id VARCHAR(64) NOT NULL, id BIGINT NOT NULL, ticket_id BIGINT "
						+ "NOT NULL, body VARCHAR(64), seq BIGINT GENERATED ALWAYS AS IDENTITY (START WITH " + first
						+ "), PRIMARY KEY (tenant_id, id), FOREIGN KEY (tenant_id, ticket_id) REFERENCES ticket "
						+ "(tenant_id, id) ON DELETE CASCADE " + noteKeyDeferral() + ")");
				s.execute("CREATE TABLE booking (tenant_id VARCHAR(64) NOT NULL, ticket_id BIGINT NOT NULL, starts "
						+ "TIMESTAMP WITH TIME ZONE NOT NULL, ends TIMESTAMP WITH TIME ZONE NOT NULL, PRIMARY KEY "
						+ "(tenant_id, ticket_id), FOREIGN KEY (tenant_id, ticket_id) REFERENCES ticket (tenant_id, id) "
						+ "ON DELETE CASCADE" + bookingConstraint() + ")");
				afterSchema(s);
			}
		}
		if (role == null) {
			this.tenancy = tenancy(directory, owners.get(0), owners.get(1));
		}
		else {
			try (ShardTenancy installing = tenancy(directory, owners.get(0), owners.get(1))) {
				installing.start();
			}
			this.tenancy = tenancy(directory, applicationPool(shards.get(0), role),
					applicationPool(shards.get(1), role));
		}
		this.tenancy.start();
		this.shard1 = owners.get(0);
		this.shard2 = owners.get(1);
		this.tenancy.admin().create(TENANT, "shard-1");
		this.tenancy.admin().create(NEIGHBOUR, "shard-1");
	}

	private ShardTenancy tenancy(DataSource directory, DataSource shard1, DataSource shard2) {
		return ShardTenancy.builder()
			.directory(directory)
			.shard("shard-1", shard1)
			.shard("shard-2", shard2)
			.tenantTables(TABLES.stream().map(table -> new TenantTable(table, "tenant_id")).toList())
			// ticket.id and ticket_note.seq are identity columns: started anyway, as while migrating to keys drawn
			// in Java.
			.idCheck(IdCheck.WARN)
			.actor("schema-features@test")
			.build();
	}

	/**
	 * Fills the tenants' tables, then moves the tenant to {@code shard-2} online while three writers of the tenant and
	 * one of the neighbour insert, update (also the key column {@code kind}) and delete, and asserts the outcome.
	 * @throws Exception on a failure
	 */
	protected void moveUnderWriters() throws Exception {
		for (long id = 1; id <= 200; id++) {
			insertEvent(TENANT, id, KINDS[(int) (id % KINDS.length)]);
		}
		for (long id = 1; id <= 40; id++) {
			insertEvent(NEIGHBOUR, id, KINDS[(int) (id % KINDS.length)]);
		}
		for (int i = 0; i < 30; i++) {
			insertTicket("t");
		}
		AtomicBoolean running = new AtomicBoolean(true);
		AtomicInteger writes = new AtomicInteger();
		ExecutorService threads = Executors.newFixedThreadPool(4);
		List<Future<?>> futures = new ArrayList<>();
		for (int w = 0; w < 4; w++) {
			int writer = w;
			String tenant = w < 3 ? TENANT : NEIGHBOUR;
			futures.add(threads.submit(() -> {
				ThreadLocalRandom random = ThreadLocalRandom.current();
				// Each of the tenant's writers changes events of its own ids (id % 3 == writer) and its own tickets, so
				// the order of its records is the order of its commits.
				long nextId = 1_000 + writer;
				while (running.get()) {
					int op = random.nextInt(12);
					long id = tenant.equals(NEIGHBOUR) ? 1 + random.nextInt(40) : 3 * random.nextInt(67) + writer;
					if (op < 4) {
						updateEvent(tenant, id, random.nextInt(1_000));
					}
					else if (op < 6) {
						changeKind(tenant, id, KINDS[random.nextInt(KINDS.length)]);
					}
					else if (op < 8) {
						insertEvent(tenant, nextId += 3, KINDS[random.nextInt(KINDS.length)]);
					}
					else if (op < 9) {
						deleteEvent(tenant, id);
					}
					else if (!tenant.equals(NEIGHBOUR)) {
						ticketWork(writer, random);
					}
					writes.incrementAndGet();
					Thread.sleep(3);
				}
				return null;
			}));
		}
		MoveResult result;
		try {
			while (writes.get() < 200) {
				Thread.sleep(10);
			}
			result = this.tenancy.mover().moveAndWait(TENANT, "shard-2", MoveSettings.defaults());
			int after = writes.get();
			while (writes.get() < after + 200) {
				Thread.sleep(10);
			}
		}
		finally {
			running.set(false);
			for (Future<?> future : futures) {
				future.get(60, TimeUnit.SECONDS);
			}
			threads.shutdown();
		}
		assertThat(result.step()).isEqualTo(MoveStep.DONE);
		assertThat(this.tenancy.router().route(TENANT).shardId()).isEqualTo("shard-2");
		assertRows(this.shard2, TENANT);
		assertRows(this.shard1, NEIGHBOUR);
		for (String table : TABLES) {
			assertThat(count(this.shard1, "SELECT COUNT(*) FROM " + table + " WHERE tenant_id = '" + TENANT + "'"))
				.as("rows of the moved tenant left in %s on the source", table).isZero();
			assertThat(count(this.shard2, "SELECT COUNT(*) FROM " + table + " WHERE tenant_id = '" + NEIGHBOUR + "'"))
				.as("rows of the neighbour in %s on the target", table).isZero();
		}
	}

	/**
	 * Asserts that the shard holds exactly the rows the tenant's writers committed: the counts per table, and each row
	 * with its values, compared by the database.
	 */
	private void assertRows(DataSource shard, String tenant) throws SQLException {
		Map<String, String> rows = this.committed.getOrDefault(tenant, Map.of());
		for (String table : TABLES) {
			long live = rows.entrySet()
				.stream()
				.filter(row -> row.getKey().startsWith(table + "/") && !row.getValue().equals(GONE))
				.count();
			assertThat(count(shard, "SELECT COUNT(*) FROM " + table + " WHERE tenant_id = '" + tenant + "'"))
				.as("%s rows of %s", table, tenant).isEqualTo(live);
		}
		try (Connection c = shard.getConnection();
				PreparedStatement event = c.prepareStatement("SELECT COUNT(*) FROM event WHERE tenant_id = ? AND id = ? "
						+ "AND kind = ? AND qty = ? AND payload = ?");
				PreparedStatement ticket = c.prepareStatement(
						"SELECT COUNT(*) FROM ticket WHERE tenant_id = ? AND id = ? AND title = ?");
				PreparedStatement note = c.prepareStatement("SELECT COUNT(*) FROM ticket_note WHERE tenant_id = ? AND "
						+ "id = ? AND ticket_id = ? AND body = ? AND seq = ?");
				PreparedStatement booking = c.prepareStatement("SELECT COUNT(*) FROM booking WHERE tenant_id = ? "
						+ "AND ticket_id = ? AND starts = ? AND ends = ?")) {
			for (Map.Entry<String, String> row : rows.entrySet()) {
				if (row.getValue().equals(GONE)) {
					continue;
				}
				String[] key = row.getKey().split("/");
				String[] values = row.getValue().split("/", -1);
				PreparedStatement ps = switch (key[0]) {
					case "event" -> {
						event.setString(3, values[0]);
						event.setInt(4, Integer.parseInt(values[1]));
						event.setString(5, values[2]);
						yield event;
					}
					case "ticket" -> {
						ticket.setString(3, values[0]);
						yield ticket;
					}
					case "ticket_note" -> {
						note.setLong(3, Long.parseLong(values[0]));
						note.setString(4, values[1]);
						note.setLong(5, Long.parseLong(values[2]));
						yield note;
					}
					default -> {
						booking.setObject(3, start(Long.parseLong(key[1])));
						booking.setObject(4, start(Long.parseLong(key[1])).plusHours(1));
						yield booking;
					}
				};
				ps.setString(1, tenant);
				ps.setLong(2, Long.parseLong(key[1]));
				try (ResultSet rs = ps.executeQuery()) {
					rs.next();
					assertThat(rs.getLong(1)).as("%s of %s with its last committed values %s", row.getKey(), tenant,
							row.getValue()).isEqualTo(1);
				}
			}
		}
	}

	/** @return when the booking of a ticket starts: an hour of its own, so that no two bookings overlap */
	private static OffsetDateTime start(long ticket) {
		return OffsetDateTime.of(2026, 1, 1, 0, 0, 0, 0, ZoneOffset.UTC).plusHours(ticket);
	}

	/**
	 * Inserts an event of a tenant, in a transaction of its own, and records it.
	 * @param tenant the tenant
	 * @param id the event's id, unique within the tenant
	 * @param kind one of {@link #KINDS}, or another value the table accepts
	 */
	protected void insertEvent(String tenant, long id, String kind) {
		String payload = "p" + ThreadLocalRandom.current().nextInt();
		write(tenant, "event/" + id, kind + "/1/" + payload, (c) -> {
			try (PreparedStatement ps = c.prepareStatement(
					"INSERT INTO event (tenant_id, id, kind, qty, payload) VALUES (?, ?, ?, 1, ?)")) {
				ps.setString(1, tenant);
				ps.setLong(2, id);
				ps.setString(3, kind);
				ps.setString(4, payload);
				return ps.executeUpdate();
			}
		});
	}

	private void updateEvent(String tenant, long id, int qty) {
		String[] values = event(tenant, id);
		if (values == null) {
			return;
		}
		String payload = "u" + ThreadLocalRandom.current().nextInt();
		write(tenant, "event/" + id, values[0] + "/" + qty + "/" + payload, (c) -> {
			try (PreparedStatement ps = c.prepareStatement(
					"UPDATE event SET qty = ?, payload = ? WHERE tenant_id = ? AND id = ?")) {
				ps.setInt(1, qty);
				ps.setString(2, payload);
				ps.setString(3, tenant);
				ps.setLong(4, id);
				return ps.executeUpdate();
			}
		});
	}

	/**
	 * An UPDATE of a key column (on PostgreSQL also the partition key: the row is deleted from its partition and
	 * inserted into another).
	 */
	private void changeKind(String tenant, long id, String kind) {
		String[] values = event(tenant, id);
		if (values == null) {
			return;
		}
		write(tenant, "event/" + id, kind + "/" + values[1] + "/" + values[2], (c) -> {
			try (PreparedStatement ps = c.prepareStatement("UPDATE event SET kind = ? WHERE tenant_id = ? AND id = ?")) {
				ps.setString(1, kind);
				ps.setString(2, tenant);
				ps.setLong(3, id);
				return ps.executeUpdate();
			}
		});
	}

	/** @return the event's committed values (kind, qty, payload), or {@code null} if there is none */
	private String[] event(String tenant, long id) {
		String values = this.committed.getOrDefault(tenant, Map.of()).get("event/" + id);
		return values == null || values.equals(GONE) ? null : values.split("/", -1);
	}

	private void deleteEvent(String tenant, long id) {
		write(tenant, "event/" + id, GONE, (c) -> {
			try (PreparedStatement ps = c.prepareStatement("DELETE FROM event WHERE tenant_id = ? AND id = ?")) {
				ps.setString(1, tenant);
				ps.setLong(2, id);
				return ps.executeUpdate();
			}
		});
	}

	/**
	 * Inserts a ticket of the moving tenant (its id drawn by the identity column, its title the prefix and a number),
	 * its note and a booking, in one transaction.
	 */
	private void insertTicket(String prefix) {
		String title = prefix + ThreadLocalRandom.current().nextInt();
		long[] id = new long[1];
		long[] seq = new long[1];
		inTransaction(TENANT, (c) -> {
			try (PreparedStatement ps = c.prepareStatement("INSERT INTO ticket (tenant_id, title) VALUES (?, ?)",
					new String[] { "id" })) {
				ps.setString(1, TENANT);
				ps.setString(2, title);
				ps.executeUpdate();
				try (ResultSet rs = ps.getGeneratedKeys()) {
					rs.next();
					id[0] = rs.getLong(1);
				}
			}
			seq[0] = insertNote(c, id[0]);
			try (PreparedStatement ps = c
				.prepareStatement("INSERT INTO booking (tenant_id, ticket_id, starts, ends) VALUES (?, ?, ?, ?)")) {
				ps.setString(1, TENANT);
				ps.setLong(2, id[0]);
				ps.setObject(3, start(id[0]));
				ps.setObject(4, start(id[0]).plusHours(1));
				ps.executeUpdate();
			}
		});
		Map<String, String> rows = this.committed.computeIfAbsent(TENANT, t -> new ConcurrentHashMap<>());
		rows.put("ticket/" + id[0], title);
		rows.put("ticket_note/" + id[0], id[0] + "/n/" + seq[0]);
		rows.put("booking/" + id[0], "");
	}

	/** Inserts the note of a ticket. @return its {@code seq}, drawn by its identity column */
	private static long insertNote(Connection c, long ticket) throws SQLException {
		try (PreparedStatement ps = c.prepareStatement(
				"INSERT INTO ticket_note (tenant_id, id, ticket_id, body) VALUES (?, ?, ?, 'n')",
				new String[] { "seq" })) {
			ps.setString(1, TENANT);
			ps.setLong(2, ticket);
			ps.setLong(3, ticket);
			ps.executeUpdate();
			try (ResultSet rs = ps.getGeneratedKeys()) {
				rs.next();
				return rs.getLong(1);
			}
		}
	}

	/**
	 * Inserts a ticket, or renames one this writer made and rewrites its note, or deletes one (its note and booking
	 * go by cascade).
	 */
	private void ticketWork(int writer, ThreadLocalRandom random) {
		String prefix = "w" + writer + "-";
		List<Long> mine = this.committed.getOrDefault(TENANT, Map.of())
			.entrySet()
			.stream()
			.filter(row -> row.getKey().startsWith("ticket/") && row.getValue().startsWith(prefix))
			.map(row -> Long.parseLong(row.getKey().substring("ticket/".length())))
			.toList();
		if (mine.isEmpty() || random.nextInt(3) == 0) {
			insertTicket(prefix);
			return;
		}
		long id = mine.get(random.nextInt(mine.size()));
		Map<String, String> rows = this.committed.get(TENANT);
		if (random.nextBoolean()) {
			String title = prefix + random.nextInt();
			int[] changed = new int[1];
			inTransaction(TENANT, (c) -> {
				try (PreparedStatement ps = c.prepareStatement(
						"UPDATE ticket SET title = ? WHERE tenant_id = ? AND id = ?")) {
					ps.setString(1, title);
					ps.setString(2, TENANT);
					ps.setLong(3, id);
					changed[0] = ps.executeUpdate();
				}
				try (PreparedStatement ps = c.prepareStatement(
						"UPDATE ticket_note SET body = ? WHERE tenant_id = ? AND id = ?")) {
					ps.setString(1, title);
					ps.setString(2, TENANT);
					ps.setLong(3, id);
					ps.executeUpdate();
				}
			});
			if (changed[0] == 1) {
				String[] note = rows.get("ticket_note/" + id).split("/");
				rows.put("ticket/" + id, title);
				rows.put("ticket_note/" + id, id + "/" + title + "/" + note[2]);
			}
		}
		else {
			int[] deleted = new int[1];
			inTransaction(TENANT, (c) -> {
				try (PreparedStatement ps = c.prepareStatement("DELETE FROM ticket WHERE tenant_id = ? AND id = ?")) {
					ps.setString(1, TENANT);
					ps.setLong(2, id);
					deleted[0] = ps.executeUpdate();
				}
			});
			if (deleted[0] == 1) {
				rows.put("ticket/" + id, GONE);
				rows.put("ticket_note/" + id, GONE);
				rows.put("booking/" + id, GONE);
			}
		}
	}

	/** Work of a tenant on its routed connection, in its transaction. */
	@FunctionalInterface
	protected interface Work {

		/**
		 * @param c the tenant's connection, auto-commit off
		 * @throws SQLException on a database error
		 */
		void run(Connection c) throws SQLException;

	}

	/** A change of one row. */
	@FunctionalInterface
	private interface Change {

		int run(Connection c) throws SQLException;

	}

	/** Runs a change of one row and records its values once committed, if it changed the row. */
	private void write(String tenant, String key, String values, Change change) {
		int[] changed = new int[1];
		inTransaction(tenant, (c) -> changed[0] = change.run(c));
		if (changed[0] == 1) {
			this.committed.computeIfAbsent(tenant, t -> new ConcurrentHashMap<>()).put(key, values);
		}
	}

	/**
	 * Runs work of the tenant in a transaction of its own through the tenancy's routing {@code DataSource}, again
	 * while the fence rejects it (40001: the move's freeze, a route that moved).
	 * @param tenant the tenant
	 * @param work the work
	 * @throws IllegalStateException with the database's error as its cause, for any other failure
	 */
	protected void inTransaction(String tenant, Work work) {
		for (int attempt = 0;; attempt++) {
			try (TenantContext.Scope scope = TenantContext.bind(tenant);
					Connection c = this.tenancy.dataSource().getConnection()) {
				c.setAutoCommit(false);
				work.run(c);
				c.commit();
				return;
			}
			catch (SQLException ex) {
				if (!"40001".equals(ex.getSQLState()) || attempt > 2_000) {
					throw new IllegalStateException("work of " + tenant, ex);
				}
				try {
					Thread.sleep(2);
				}
				catch (InterruptedException interrupted) {
					Thread.currentThread().interrupt();
					throw new IllegalStateException(interrupted);
				}
			}
		}
	}

	/**
	 * @param shard a shard's pool
	 * @param sql a query answering one number
	 * @return that number
	 * @throws SQLException on a database error
	 */
	protected static long count(DataSource shard, String sql) throws SQLException {
		try (Connection c = shard.getConnection(); Statement s = c.createStatement(); ResultSet rs = s.executeQuery(sql)) {
			rs.next();
			return rs.getLong(1);
		}
	}

}
