package io.github.shardtenancy.testing.move;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.IntFunction;
import java.util.stream.Collectors;

import javax.sql.DataSource;

import io.github.shardtenancy.MoveResult;
import io.github.shardtenancy.MoveSettings;
import io.github.shardtenancy.MoveStep;
import io.github.shardtenancy.ShardTenancy;
import io.github.shardtenancy.TenantContext;
import io.github.shardtenancy.TenantTable;
import io.github.shardtenancy.liquibase.ShardTenancyMigrations;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The schema matrix of the online move: one tenant table per family of column types (given by the subclass, one per
 * database), each with rows of the moving tenant and of a neighbour on the same shard, nullable columns holding NULL
 * in some rows and the edge values of their type in others. Writers of the moving tenant insert, update and delete
 * rows of every table during the whole move ({@link MoveSettings#defaults()}), and when the copy is done
 * ({@link MoveStep#COPIED}) every live row of the tenant is updated once more, so that every value of every column
 * also travels through the catch-up (keyed reads and upserts), not only through the bulk copy.
 *
 * <p>What is proven, per table, once the move is {@link MoveStep#DONE} and the tenant routed to the target:
 * <ul>
 * <li>every row the writers committed is on the new owner exactly once, and no other row of the tenant;</li>
 * <li>each of its values is the committed one, as the database writes it as text: the writer reads the text form of
 * each column ({@link #text(Column)}, on PostgreSQL {@code col::text}) in the transaction of its write, and the same
 * expression is read on the new owner after the move; the two strings are compared. No value returned by
 * {@code getObject} is compared, so a value without an equality operator (xml, json) or whose Java object loses
 * something (a time zone offset, digits, a NaN) is compared as the database writes it;</li>
 * <li>none of the tenant's rows is left on the source;</li>
 * <li>the neighbour's rows on the source are as they were before the move (text form again), and none of them is on
 * the target.</li>
 * </ul>
 * The subclass's checks then hold on the new owner (for example that a value of the tenant is stored out of line).
 * The move runs twice: with the shards as {@link #shard} opens them, and again with the shards opened as an
 * application's role ({@link #applicationShard}: on PostgreSQL row-level security applies to it, so the copy is
 * multi-row INSERTs instead of {@code COPY}), where the database has one.
 *
 * <p>A column or table the database cannot have (an extension or collation it lacks, a type its version does not
 * know, a value it cannot hold with the fence's triggers) is left out by the subclass, which says why; each shows as a
 * skipped test.
 */
public abstract class TypeMatrixMoveScenarios {

	private static final Logger log = LoggerFactory.getLogger(TypeMatrixMoveScenarios.class);

	/** The moving tenant. */
	protected static final String TENANT = "acme";

	/** A tenant that stays on the source. */
	protected static final String NEIGHBOUR = "globex";

	/** The tenant column of every table. */
	protected static final String TENANT_COLUMN = "tenant_id";

	/** Rows of the moving tenant per table before the move; the neighbour has half as many. */
	private static final int ROWS = 24;

	/** Keys of the neighbour start here, so that keys without the tenant column differ between the tenants. */
	private static final int NEIGHBOUR_KEYS = 100_000;

	/** Writers of the moving tenant during the move. */
	private static final int WRITERS = 3;

	/**
	 * A column of a matrix table.
	 * @param name the column name
	 * @param type its SQL type, with constraints ({@code numeric}, {@code text COLLATE "C"}, {@code INT NOT NULL})
	 * @param text the SQL expression of its text form, {@code %s} standing for the column; {@code null} for the
	 * database's usual one ({@link #text(Column)})
	 * @param values the SQL expression of its value in a row's variant (a key's number for a key column; for the
	 * others a number that changes with every update of the row)
	 */
	public record Column(String name, String type, String text, IntFunction<String> values) {

		/**
		 * @param template the SQL expression of the column's text form, {@code %s} standing for the column
		 * @return this column, its text form read with {@code template}
		 */
		public Column text(String template) {
			return new Column(this.name, this.type, template, this.values);
		}

	}

	/**
	 * A table of the matrix.
	 * @param name the table name
	 * @param family what it holds, for the test's name
	 * @param columns its columns in order, the tenant column ({@link #TENANT_COLUMN}) among them
	 * @param primaryKey the primary key's columns in key order
	 */
	public record TypeTable(String name, String family, List<Column> columns, List<String> primaryKey) {

		List<Column> keyColumns() {
			return this.primaryKey.stream()
				.map(k -> this.columns.stream().filter(c -> c.name().equals(k)).findFirst().orElseThrow())
				.toList();
		}

		List<Column> valueColumns() {
			return this.columns.stream()
				.filter(c -> !this.primaryKey.contains(c.name()) && !c.name().equals(TENANT_COLUMN))
				.toList();
		}

		String ddl() {
			return "CREATE TABLE " + this.name + " ("
					+ this.columns.stream().map(c -> c.name() + " " + c.type()).collect(Collectors.joining(", "))
					+ ", PRIMARY KEY (" + String.join(", ", this.primaryKey) + "))";
		}

	}

	/**
	 * What the subclass's database can hold: statements run on each shard before the tables are created (types,
	 * domains, extensions), the tables, what was left out and why, and queries that prove a case was there.
	 * @param setup the statements
	 * @param tables the tables
	 * @param skipped what was left out, each with its reason
	 * @param checks queries of one boolean, {@code true} on the new owner after the move (for example that a value of
	 * the tenant is stored out of line); {@code ?} is the tenant
	 */
	public record Schema(List<String> setup, List<TypeTable> tables, List<String> skipped, List<String> checks) {
	}

	/**
	 * A column whose value cycles through {@code values} (SQL expressions, {@code NULL} among them for a nullable
	 * column) as the row's variant changes.
	 * @param name the column name
	 * @param type its SQL type
	 * @param values its values as SQL expressions
	 * @return the column
	 */
	protected static Column column(String name, String type, String... values) {
		List<String> cycle = List.of(values);
		return new Column(name, type, null, v -> cycle.get(Math.floorMod(v, cycle.size())));
	}

	/**
	 * @param name the column name
	 * @param type its SQL type, {@code NOT NULL}
	 * @param value the SQL expression of a key's value, from the key's number (unique per table and tenant)
	 * @return a key column
	 */
	protected static Column key(String name, String type, IntFunction<String> value) {
		return new Column(name, type, null, value);
	}

	/**
	 * @param type the tenant column's SQL type
	 * @return the tenant column, whose value the scenario fills in
	 */
	protected static Column tenantColumn(String type) {
		return new Column(TENANT_COLUMN, type, null, v -> null);
	}

	/**
	 * A table of the usual shape: the tenant column, an integer {@code id}, the columns; primary key
	 * {@code (tenant_id, id)}.
	 * @param name the table name
	 * @param family what it holds
	 * @param columns the value columns
	 * @return the table
	 */
	protected TypeTable table(String name, String family, Column... columns) {
		List<Column> all = new ArrayList<>();
		all.add(tenantColumn(tenantType()));
		all.add(key("id", "INT NOT NULL", String::valueOf));
		all.addAll(Arrays.asList(columns));
		return new TypeTable(name, family, List.copyOf(all), List.of(TENANT_COLUMN, "id"));
	}

	/**
	 * A table whose primary key is one uuid column that is not its first: {@code (note, tenant_id, id, value)},
	 * primary key {@code (id)}.
	 * @param family what it holds, for the test's name
	 * @param textType the SQL type of {@code note}
	 * @param uuidType the SQL type of {@code id} (a uuid)
	 * @param value one more column
	 * @return the table
	 */
	protected TypeTable uuidKeyTable(String family, String textType, String uuidType, Column value) {
		return new TypeTable("t_uuid_key", family,
				List.of(column("note", textType, "'first column'", "NULL"), tenantColumn(tenantType()),
						key("id", uuidType + " NOT NULL", v -> String.format("'%08x-0000-4000-8000-%012x'", v, v * 7L)),
						value),
				List.of("id"));
	}

	/**
	 * A table whose primary key is {@code (k_text, k_int, k_date)}, without the tenant column.
	 * @param family what it holds, for the test's name
	 * @param textType the SQL type of {@code k_text}
	 * @param dateType the SQL type of {@code k_date}
	 * @param dates the SQL expressions of the keys' dates, one after the other
	 * @param value one more column
	 * @return the table
	 */
	protected TypeTable compositeKeyTable(String family, String textType, String dateType, List<String> dates,
			Column value) {
		return new TypeTable("t_composite_key", family,
				List.of(tenantColumn(tenantType()),
						key("k_text", textType + " NOT NULL", v -> "'key, with space ß " + (v % 3) + "'"),
						key("k_int", "INT NOT NULL", String::valueOf),
						key("k_date", dateType + " NOT NULL", v -> dates.get(v % dates.size())), value),
				List.of("k_text", "k_int", "k_date"));
	}

	private ShardTenancy tenancy;

	private Schema schema;

	/** Per table, the text forms of each committed row of the moving tenant by key number, or NONE once deleted. */
	private final Map<String, Map<Integer, List<String>>> committed = new ConcurrentHashMap<>();

	private final Map<String, Integer> versions = new ConcurrentHashMap<>();

	private final Map<String, Object> locks = new ConcurrentHashMap<>();

	private final Map<String, AtomicInteger> nextKey = new ConcurrentHashMap<>();

	private final AtomicInteger writes = new AtomicInteger();

	private final AtomicInteger sweptRows = new AtomicInteger();

	/** The step data of the move's COPIED step (rows, time, the copy's method). */
	private final AtomicReference<String> copied = new AtomicReference<>();

	/** The shards as {@link #shard} opened them. */
	private DataSource source;

	private DataSource target;

	/** @return a new, empty directory database */
	protected abstract DataSource directory();

	/**
	 * @param shardId the shard's id
	 * @return a new, empty shard database, its pool with at least 8 connections
	 */
	protected abstract DataSource shard(String shardId);

	/**
	 * @param shardId the shard's id
	 * @param owner the shard's database as {@link #shard} opened it, its tables created
	 * @return the shard's database as an application's role opens it (neither a superuser nor the tables' owner,
	 * row-level security applying to it), granted what such a role is granted; {@code null} (the default) if the
	 * database has no such role
	 * @throws SQLException on a database error
	 */
	protected DataSource applicationShard(String shardId, DataSource owner) throws SQLException {
		return null;
	}

	/** Closes what {@link #directory()}, {@link #shard(String)} and {@link #applicationShard} opened. */
	protected abstract void closeDatabases();

	/** @return the SQL type of the tenant column ({@code VARCHAR(64) NOT NULL}) */
	protected String tenantType() {
		return "VARCHAR(64) NOT NULL";
	}

	/**
	 * @param shard a connection to a new shard, to ask what the database supports
	 * @return what to create on each shard
	 * @throws SQLException on a database error
	 */
	protected abstract Schema schema(Connection shard) throws SQLException;

	/**
	 * @param column a column
	 * @return the SQL expression of its text form when the column does not give one
	 */
	protected abstract String text(Column column);

	/** The text form in {@code table}'s columns order, the key's text first. */
	private String selectText(TypeTable table) {
		List<String> texts = new ArrayList<>();
		for (Column column : table.columns()) {
			texts.add(String.format(column.text() != null ? column.text() : text(column), column.name()));
		}
		return "SELECT " + String.join(", ", texts) + " FROM " + table.name();
	}

	/**
	 * Creates the databases and the tables, and starts the tenancy: on the shards as {@link #shard} opened them, or
	 * ({@code asApplication}) once on those, which installs the fence, then on {@link #applicationShard}'s.
	 * @return whether it started ({@code false}: the database has no application role)
	 */
	private boolean start(boolean asApplication) throws SQLException {
		DataSource directory = directory();
		this.source = shard("shard-1");
		this.target = shard("shard-2");
		ShardTenancyMigrations.migrateDirectory(directory);
		try (Connection c = this.source.getConnection()) {
			this.schema = schema(c);
		}
		this.schema.skipped().forEach(reason -> log.warn("Type matrix: left out: {}", reason));
		for (Map.Entry<String, DataSource> shard : Map.of("shard-1", this.source, "shard-2", this.target).entrySet()) {
			ShardTenancyMigrations.migrateShard(shard.getValue(), shard.getKey(), List.of());
			try (Connection c = shard.getValue().getConnection(); Statement s = c.createStatement()) {
				for (String sql : this.schema.setup()) {
					s.execute(sql);
				}
				for (TypeTable table : this.schema.tables()) {
					s.execute(table.ddl());
				}
			}
		}
		DataSource shard1 = this.source;
		DataSource shard2 = this.target;
		if (asApplication) {
			shard1 = applicationShard("shard-1", this.source);
			shard2 = applicationShard("shard-2", this.target);
			if (shard1 == null || shard2 == null) {
				return false;
			}
			try (ShardTenancy installing = tenancy(directory, this.source, this.target)) {
				installing.start();
			}
		}
		this.tenancy = tenancy(directory, shard1, shard2);
		this.tenancy.start();
		this.tenancy.admin().create(TENANT, "shard-1");
		this.tenancy.admin().create(NEIGHBOUR, "shard-1");
		return true;
	}

	private ShardTenancy tenancy(DataSource directory, DataSource shard1, DataSource shard2) {
		return ShardTenancy.builder()
			.directory(directory)
			.shard("shard-1", shard1)
			.shard("shard-2", shard2)
			.tenantTables(this.schema.tables().stream().map(t -> new TenantTable(t.name(), TENANT_COLUMN)).toList())
			.actor("type-matrix@test")
			.moveHook((moveId, step) -> {
				if (step == MoveStep.COPIED) {
					this.copied.set(this.tenancy.mover().status(moveId).stepData());
					sweep();
				}
			})
			.build();
	}

	@AfterEach
	void stop() {
		if (this.tenancy != null) {
			this.tenancy.close();
		}
		closeDatabases();
	}

	@TestFactory
	@DisplayName("online move under writers, values changed after the copy; DONE, every committed row once on the new "
			+ "owner with its values' text, nothing left on the source, the neighbour untouched")
	List<DynamicTest> movesEveryColumnTypeUnderWriters() throws Exception {
		start(false);
		return moveAndCompare();
	}

	@TestFactory
	@DisplayName("the same with the shards opened as an application's role (no superuser, not the tables' owner, "
			+ "row-level security on): the copy is multi-row INSERTs")
	List<DynamicTest> movesEveryColumnTypeAsApplicationRole() throws Exception {
		if (!start(true)) {
			String reason = getClass().getSimpleName() + " has no application role: its moves run as its only user "
					+ "(the first test)";
			return List.of(DynamicTest.dynamicTest("left out: " + reason, () -> Assumptions.abort(reason)));
		}
		List<DynamicTest> tests = moveAndCompare();
		assertThat(this.copied.get()).as("the copy step").contains("via multi-row INSERT");
		return tests;
	}

	private List<DynamicTest> moveAndCompare() throws Exception {
		for (TypeTable table : this.schema.tables()) {
			this.committed.put(table.name(), new ConcurrentHashMap<>());
			this.nextKey.put(table.name(), new AtomicInteger(ROWS));
			for (int k = 0; k < ROWS; k++) {
				write(table, k, Op.INSERT);
			}
			for (int k = 0; k < ROWS / 2; k++) {
				insertNeighbour(table, NEIGHBOUR_KEYS + k);
			}
		}
		// Read as the shards were opened (by their superuser on PostgreSQL, whom row-level security does not limit).
		DataSource source = this.source;
		DataSource target = this.target;
		Map<String, Map<String, List<String>>> neighbourBefore = new LinkedHashMap<>();
		for (TypeTable table : this.schema.tables()) {
			neighbourBefore.put(table.name(), rows(source, table, NEIGHBOUR));
		}
		AtomicBoolean running = new AtomicBoolean(true);
		ExecutorService writers = Executors.newFixedThreadPool(WRITERS);
		List<Future<?>> futures = new ArrayList<>();
		for (int w = 0; w < WRITERS; w++) {
			futures.add(writers.submit(() -> {
				while (running.get()) {
					writeSomething();
					Thread.sleep(3);
				}
				return null;
			}));
		}
		MoveResult result;
		int before;
		int after;
		try {
			// The writers run before, during and after the move.
			await(100, futures);
			before = this.writes.get();
			result = this.tenancy.mover().moveAndWait(TENANT, "shard-2", MoveSettings.defaults());
			after = this.writes.get();
			await(after + 60, futures);
		}
		finally {
			running.set(false);
			for (Future<?> future : futures) {
				future.get(60, TimeUnit.SECONDS);
			}
			writers.shutdown();
		}
		log.info("Type matrix: {} writes before the move, {} during it ({} rows swept at COPIED), {} in all; "
				+ "copied: {}", before, after - before, this.sweptRows.get(), this.writes.get(), this.copied.get());
		assertThat(result.step()).isEqualTo(MoveStep.DONE);
		assertThat(this.tenancy.router().route(TENANT).shardId()).isEqualTo("shard-2");
		assertThat(this.sweptRows.get()).as("rows updated after the copy").isPositive();
		List<DynamicTest> tests = new ArrayList<>();
		for (TypeTable table : this.schema.tables()) {
			// Read now, while the databases are open; compared in the dynamic test.
			Map<String, List<String>> owner = rows(target, table, TENANT);
			List<String> duplicates = duplicateKeys(target, table, TENANT);
			Map<String, List<String>> left = rows(source, table, TENANT);
			Map<String, List<String>> neighbourAfter = rows(source, table, NEIGHBOUR);
			Map<String, List<String>> neighbourOnTarget = rows(target, table, NEIGHBOUR);
			Map<String, List<String>> expected = expected(table);
			tests.add(DynamicTest.dynamicTest(table.name() + " (" + table.family() + ")", () -> {
				assertThat(expected).as("committed rows of %s", table.name()).isNotEmpty();
				assertThat(duplicates).as("keys of %s on the new owner more than once", table.name()).isEmpty();
				assertThat(differences(table, expected, owner)).as("rows of %s on the new owner that differ from "
						+ "the committed ones (%d committed)", table.name(), expected.size()).isEmpty();
				assertThat(left.keySet()).as("rows of %s left on the source", table.name()).isEmpty();
				assertThat(differences(table, neighbourBefore.get(table.name()), neighbourAfter))
					.as("neighbour's rows of %s changed", table.name())
					.isEmpty();
				assertThat(neighbourOnTarget.keySet()).as("neighbour's rows of %s on the target", table.name())
					.isEmpty();
			}));
		}
		for (String check : this.schema.checks()) {
			boolean holds;
			try (Connection c = target.getConnection(); PreparedStatement ps = c.prepareStatement(check)) {
				ps.setString(1, TENANT);
				try (ResultSet rs = ps.executeQuery()) {
					holds = rs.next() && rs.getBoolean(1);
				}
			}
			tests.add(DynamicTest.dynamicTest("on the new owner: " + check,
					() -> assertThat(holds).as("%s on the new owner", check).isTrue()));
		}
		for (String skipped : this.schema.skipped()) {
			tests.add(DynamicTest.dynamicTest("left out: " + skipped, () -> Assumptions.abort(skipped)));
		}
		return tests;
	}

	/** Waits until the writers committed {@code count} writes in all, or one of them ended (with its failure). */
	private void await(int count, List<Future<?>> writers) throws Exception {
		while (this.writes.get() < count) {
			for (Future<?> writer : writers) {
				if (writer.isDone()) {
					writer.get();
					throw new IllegalStateException("a writer ended");
				}
			}
			Thread.sleep(10);
		}
	}

	/** Updates every live row of the tenant once (the hook at COPIED): each value then goes through the catch-up. */
	private void sweep() {
		for (TypeTable table : this.schema.tables()) {
			for (int k : new ArrayList<>(this.committed.get(table.name()).keySet())) {
				if (write(table, k, Op.UPDATE)) {
					this.sweptRows.incrementAndGet();
				}
			}
		}
	}

	private enum Op {

		INSERT, UPDATE, DELETE, ANY

	}

	/** One random write of the moving tenant: an insert of a new or deleted key, an update, or a delete. */
	private void writeSomething() {
		ThreadLocalRandom random = ThreadLocalRandom.current();
		List<TypeTable> tables = this.schema.tables();
		TypeTable table = tables.get(random.nextInt(tables.size()));
		AtomicInteger next = this.nextKey.get(table.name());
		int key = random.nextInt(10) == 0 ? next.getAndIncrement() : random.nextInt(next.get());
		write(table, key, Op.ANY);
	}

	/**
	 * Writes one row of the moving tenant in a transaction of its own, reading the text form of the row in the same
	 * transaction, again while the fence rejects it (40001: the move's freeze, a route that moved); records what it
	 * committed. A row's writes are serialized (one lock per row), so the record is in commit order.
	 * @return whether it wrote (an UPDATE or DELETE of a missing row does not)
	 */
	private boolean write(TypeTable table, int key, Op wanted) {
		String id = table.name() + "/" + key;
		synchronized (this.locks.computeIfAbsent(id, k -> new Object())) {
			Map<Integer, List<String>> rows = this.committed.get(table.name());
			boolean live = rows.get(key) != null && rows.get(key) != NONE;
			Op op = wanted;
			if (wanted == Op.ANY) {
				op = !live ? Op.INSERT : (ThreadLocalRandom.current().nextInt(4) == 0 ? Op.DELETE : Op.UPDATE);
			}
			if ((op == Op.INSERT) == live) {
				return false;
			}
			int version = this.versions.merge(id, 1, Integer::sum);
			String where = keyPredicate(table, TENANT, key);
			String sql = switch (op) {
				case INSERT -> insert(table, TENANT, key, key + version);
				case UPDATE -> "UPDATE " + table.name() + " SET "
						+ table.valueColumns()
							.stream()
							.map(c -> c.name() + " = " + c.values().apply(key + version))
							.collect(Collectors.joining(", "))
						+ " WHERE " + where;
				default -> "DELETE FROM " + table.name() + " WHERE " + where;
			};
			for (int attempt = 0;; attempt++) {
				try (TenantContext.Scope scope = TenantContext.bind(TENANT);
						Connection c = this.tenancy.dataSource().getConnection()) {
					c.setAutoCommit(false);
					List<String> text;
					try (Statement s = c.createStatement()) {
						int changed = s.executeUpdate(sql);
						if (changed != 1) {
							throw new IllegalStateException(sql + " changed " + changed + " rows");
						}
					}
					try (PreparedStatement ps = c.prepareStatement(selectText(table) + " WHERE " + where);
							ResultSet rs = ps.executeQuery()) {
						text = rs.next() ? row(rs, table) : NONE;
					}
					c.commit();
					rows.put(key, text);
					this.writes.incrementAndGet();
					return true;
				}
				catch (SQLException ex) {
					if (!"40001".equals(ex.getSQLState()) || attempt > 2_000) {
						throw new IllegalStateException(sql.substring(0, Math.min(sql.length(), 500)), ex);
					}
					pause();
				}
			}
		}
	}

	private void insertNeighbour(TypeTable table, int key) throws SQLException {
		try (TenantContext.Scope scope = TenantContext.bind(NEIGHBOUR);
				Connection c = this.tenancy.dataSource().getConnection();
				Statement s = c.createStatement()) {
			s.executeUpdate(insert(table, NEIGHBOUR, key, key));
		}
	}

	private static void pause() {
		try {
			Thread.sleep(2);
		}
		catch (InterruptedException interrupted) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException(interrupted);
		}
	}

	private static String insert(TypeTable table, String tenant, int key, int variant) {
		List<String> values = new ArrayList<>();
		for (Column column : table.columns()) {
			if (column.name().equals(TENANT_COLUMN)) {
				values.add("'" + tenant + "'");
			}
			else if (table.primaryKey().contains(column.name())) {
				values.add(column.values().apply(key));
			}
			else {
				values.add(column.values().apply(variant));
			}
		}
		return "INSERT INTO " + table.name() + " ("
				+ table.columns().stream().map(Column::name).collect(Collectors.joining(", ")) + ") VALUES ("
				+ String.join(", ", values) + ")";
	}

	private static String keyPredicate(TypeTable table, String tenant, int key) {
		List<String> terms = new ArrayList<>();
		terms.add(TENANT_COLUMN + " = '" + tenant + "'");
		for (Column column : table.keyColumns()) {
			if (!column.name().equals(TENANT_COLUMN)) {
				terms.add(column.name() + " = " + column.values().apply(key));
			}
		}
		return String.join(" AND ", terms);
	}

	/** @return the text forms of the current row, in the table's column order */
	private static List<String> row(ResultSet rs, TypeTable table) throws SQLException {
		List<String> text = new ArrayList<>();
		for (int i = 1; i <= table.columns().size(); i++) {
			text.add(rs.getString(i));
		}
		return text;
	}

	/** @return the key's text form: its columns' text forms joined */
	private static String keyOf(TypeTable table, List<String> row) {
		List<String> key = new ArrayList<>();
		for (String column : table.primaryKey()) {
			for (int i = 0; i < table.columns().size(); i++) {
				if (table.columns().get(i).name().equals(column)) {
					key.add(row.get(i));
				}
			}
		}
		return String.join(" | ", key);
	}

	/** @return a tenant's rows in one table of a shard, as text, by the key's text */
	private Map<String, List<String>> rows(DataSource shard, TypeTable table, String tenant) throws SQLException {
		Map<String, List<String>> rows = new TreeMap<>();
		try (Connection c = shard.getConnection();
				PreparedStatement ps = c.prepareStatement(selectText(table) + " WHERE " + TENANT_COLUMN + " = ?")) {
			ps.setString(1, tenant);
			try (ResultSet rs = ps.executeQuery()) {
				while (rs.next()) {
					List<String> row = row(rs, table);
					rows.put(keyOf(table, row), row);
				}
			}
		}
		return rows;
	}

	/** @return the keys (as text) of a tenant's rows in one table that the shard has more than once */
	private List<String> duplicateKeys(DataSource shard, TypeTable table, String tenant) throws SQLException {
		String keys = table.keyColumns()
			.stream()
			.map(c -> String.format(c.text() != null ? c.text() : text(c), c.name()))
			.collect(Collectors.joining(", "));
		List<String> duplicates = new ArrayList<>();
		try (Connection c = shard.getConnection();
				PreparedStatement ps = c.prepareStatement("SELECT " + keys + ", COUNT(*) FROM " + table.name()
						+ " WHERE " + TENANT_COLUMN + " = ? GROUP BY " + keys + " HAVING COUNT(*) > 1")) {
			ps.setString(1, tenant);
			try (ResultSet rs = ps.executeQuery()) {
				while (rs.next()) {
					duplicates.add(rs.getString(1));
				}
			}
		}
		return duplicates;
	}

	private Map<String, List<String>> expected(TypeTable table) {
		Map<String, List<String>> expected = new TreeMap<>();
		for (List<String> row : this.committed.get(table.name()).values()) {
			if (row != NONE) {
				expected.put(keyOf(table, row), row);
			}
		}
		return expected;
	}

	/**
	 * @return one line per key missing, extra or with a column whose text differs (long values shortened, their
	 * lengths given)
	 */
	private static List<String> differences(TypeTable table, Map<String, List<String>> expected,
			Map<String, List<String>> actual) {
		List<String> differences = new ArrayList<>();
		for (Map.Entry<String, List<String>> row : expected.entrySet()) {
			List<String> found = actual.get(row.getKey());
			if (found == null) {
				differences.add("key " + row.getKey() + ": missing");
				continue;
			}
			for (int i = 0; i < table.columns().size(); i++) {
				String a = row.getValue().get(i);
				String b = found.get(i);
				if (!Objects.equals(a, b)) {
					differences.add("key " + row.getKey() + ", column " + table.columns().get(i).name() + ": expected "
							+ shorten(a) + ", was " + shorten(b));
				}
			}
		}
		for (String key : actual.keySet()) {
			if (!expected.containsKey(key)) {
				differences.add("key " + key + ": not committed");
			}
		}
		return differences;
	}

	private static String shorten(String text) {
		if (text == null || text.length() <= 200) {
			return text == null ? "NULL" : "'" + text + "'";
		}
		return "'" + text.substring(0, 100) + "...' (" + text.length() + " characters)";
	}

	/** What a deleted row maps to in the record of committed writes. */
	private static final List<String> NONE = List.of();

}
