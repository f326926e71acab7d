package io.github.shardtenancy.testing.ids;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;

import javax.sql.DataSource;

import com.zaxxer.hikari.HikariConfig;
import io.github.shardtenancy.ReferenceStatement;
import io.github.shardtenancy.ShardTenancy;
import io.github.shardtenancy.ShardTenancyBuilder;
import io.github.shardtenancy.TenantContext;
import io.github.shardtenancy.liquibase.ShardTenancyMigrations;
import org.hibernate.SessionFactory;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The id-floor scenario of the {@code Integer}-id tests on H2 and PostgreSQL: shards with rows from before the first
 * id was drawn from the directory's counters, as in a ported application. Reference table {@code ref_colour} has ids
 * 1 to {@value #REFERENCE_ROWS} on every shard (seeded by {@link #CHANGELOG}); tenant table {@code int_ticket}
 * ({@link IntTicket}) has ids 1 to {@value #TENANT_ROWS} on {@code shard-2} only ({@link #seedTenantRows}); table
 * {@code legacy_code}, whose primary key is {@code code_no}, exists on {@code shard-2} only, with keys up to
 * {@value #LEGACY_ROWS}. The first ids drawn by plain JDBC ({@link ShardTenancy#nextIntId(String)}) and by
 * {@code @ShardSafeId} are above them.
 */
public final class SeededIds {

	/** The shard changelog creating {@code ref_colour} with its six seeded rows. */
	public static final String CHANGELOG = "db/ids-test/seeded-colours.xml";

	/** The shard changelogs of the scenario: {@link Tickets#CHANGELOG} and {@link #CHANGELOG}. */
	public static final List<String> CHANGELOGS = List.of(Tickets.CHANGELOG, CHANGELOG);

	/** The seeded reference rows: ids 1 to 6 on every shard. */
	public static final int REFERENCE_ROWS = 6;

	/** The seeded tenant rows of {@code int_ticket}: ids 1 to 40, on {@code shard-2} only. */
	public static final int TENANT_ROWS = 40;

	/** The rows of {@code legacy_code}: keys 1 to 17, on {@code shard-2} only. */
	public static final int LEGACY_ROWS = 17;

	private SeededIds() {
	}

	/**
	 * @param actor who the instance is
	 * @param pools a new pool configuration of the database {@code "directory"}, {@code "shard-1"} or
	 * {@code "shard-2"}
	 * @return a builder of an instance on that directory and shards, with the ticket tables as tenant tables,
	 * {@code ref_colour} as reference table, and a shard migrator running {@link #CHANGELOGS}
	 */
	public static ShardTenancyBuilder builder(String actor, Function<String, HikariConfig> pools) {
		return ShardTenancy.builder()
			.directory(pools.apply("directory"))
			.shard("shard-1", pools.apply("shard-1"))
			.shard("shard-2", pools.apply("shard-2"))
			.tenantTables(Tickets.TABLES)
			.referenceTables(List.of("ref_colour"))
			.shardMigrator((shardId, dataSource, dialect) -> ShardTenancyMigrations.migrateShard(dataSource, shardId,
					CHANGELOGS))
			.actor(actor);
	}

	/**
	 * Writes rows of {@code int_ticket} with ids {@code from} to {@code to} for a tenant, with plain JDBC (as rows of
	 * an imported database), and creates {@code legacy_code} with keys 1 to {@value #LEGACY_ROWS} if {@code legacy}.
	 * @param shard a shard's pool, migrated with {@link #CHANGELOGS}
	 * @param tenant the rows' tenant
	 * @param from the first id
	 * @param to the last id
	 * @param legacy whether to create {@code legacy_code} too
	 * @throws SQLException on a database error
	 */
	public static void seedTenantRows(DataSource shard, String tenant, int from, int to, boolean legacy)
			throws SQLException {
		try (Connection c = shard.getConnection();
				PreparedStatement ps = c.prepareStatement("INSERT INTO int_ticket (id, tenant_id, body) VALUES (?, ?, ?)")) {
			for (int id = from; id <= to; id++) {
				ps.setInt(1, id);
				ps.setString(2, tenant);
				ps.setString(3, "seeded " + id);
				ps.addBatch();
			}
			ps.executeBatch();
			if (legacy) {
				try (Statement st = c.createStatement()) {
					st.execute("CREATE TABLE legacy_code (code_no INT PRIMARY KEY, label VARCHAR(20))");
					for (int id = 1; id <= LEGACY_ROWS; id++) {
						st.execute("INSERT INTO legacy_code (code_no, label) VALUES (" + id + ", 'code " + id + "')");
					}
				}
			}
		}
	}

	/**
	 * On a started instance whose shards hold the seeded rows: the first id of the reference table by plain JDBC is
	 * above 6 and its reference write reaches both shards (no key collision); the first {@code @ShardSafeId} ids of
	 * the tenant table, for a tenant on {@code shard-1} and one on {@code shard-2}, are above 40 and commit; the plain
	 * JDBC ids of the tenant table continue above them; {@code legacy_code} (missing on {@code shard-1}, keyed by
	 * {@code code_no}) starts above 17; a table on no shard starts at 1, and so does the default counter, which has no
	 * table.
	 * @param tenancy the instance, started, on a fresh directory
	 * @param dialect Hibernate's dialect class name
	 * @param owner a pool of a shard ({@code "shard-1"}, {@code "shard-2"}) as a user that reads every tenant's rows
	 * @return the {@code @ShardSafeId} ids written
	 * @throws Exception on a database error
	 */
	public static List<Integer> firstIdsAboveSeededRows(ShardTenancy tenancy, String dialect,
			Function<String, DataSource> owner) throws Exception {
		int colour = tenancy.nextIntId("ref_colour");
		assertThat(colour).as("the first id of the reference table, above its seeded rows")
			.isGreaterThan(REFERENCE_ROWS);
		tenancy.referenceTables()
			.write(List.of(ReferenceStatement.of("INSERT INTO ref_colour (id, name) VALUES (?, ?)", colour, "teal")));
		for (String shard : List.of("shard-1", "shard-2")) {
			assertThat(ids(tenancy.topology().dataSource(shard), "ref_colour")).as("reference rows on " + shard)
				.hasSize(REFERENCE_ROWS + 1)
				.contains(colour);
		}

		tenancy.admin().create("acme", "shard-1");
		tenancy.admin().create("globex", "shard-2");
		List<Integer> written = new ArrayList<>();
		try (SessionFactory factory = Tickets.sessionFactory(tenancy, dialect)) {
			written.add(persist(factory, "globex"));
			written.add(persist(factory, "acme"));
			written.add(persist(factory, "globex"));
		}
		assertThat(written).as("the first @ShardSafeId Integer ids, above the tenant rows of shard-2")
			.doesNotHaveDuplicates()
			.allMatch((id) -> id > TENANT_ROWS);
		assertThat(ids(owner.apply("shard-2"), "int_ticket")).as("seeded and new tenant rows on shard-2")
			.hasSize(TENANT_ROWS + 2)
			.contains(written.get(0), written.get(2));
		int jdbc = tenancy.nextIntId("int_ticket");
		assertThat(jdbc).isGreaterThan(TENANT_ROWS);
		assertThat(written).doesNotContain(jdbc);

		assertThat(tenancy.nextIntId("LEGACY_CODE")).as("a table on shard-2 only, keyed by code_no")
			.isGreaterThan(LEGACY_ROWS);
		assertThat(tenancy.nextIntId("no_such_table")).as("a table on no shard").isEqualTo(1);
		assertThat(tenancy.nextIntId()).as("the default counter has no table").isEqualTo(1);
		return written;
	}

	/**
	 * A shard registered at runtime whose {@code int_ticket} already holds ids up to {@code largest} (written by the
	 * caller before): after {@code registerShard}, the next plain JDBC id of the table and the first
	 * {@code @ShardSafeId} id of a tenant on it are above them, though this instance had a block in hand below.
	 * @param tenancy the instance, started, that drew ids of {@code int_ticket} already
	 * @param dialect Hibernate's dialect class name
	 * @param shardId the new shard's id
	 * @param config the new shard's pool settings
	 * @param largest the largest id on the new shard
	 * @throws Exception on a database error
	 */
	public static void shardRegisteredWithRows(ShardTenancy tenancy, String dialect, String shardId,
			HikariConfig config, int largest) throws Exception {
		int before = tenancy.nextIntId("int_ticket");
		assertThat(before).as("this instance's block in hand").isLessThan(largest);
		tenancy.admin().registerShard(shardId, null, config);
		assertThat(tenancy.nextIntId("int_ticket")).as("after the shard's registration").isGreaterThan(largest);
		tenancy.admin().create("initech", shardId);
		try (SessionFactory factory = Tickets.sessionFactory(tenancy, dialect)) {
			assertThat(persist(factory, "initech")).isGreaterThan(largest);
		}
	}

	private static int persist(SessionFactory factory, String tenant) throws Exception {
		return TenantContext.callAs(tenant, () -> factory.fromTransaction((session) -> {
			IntTicket ticket = new IntTicket(tenant + " new");
			session.persist(ticket);
			return ticket.getId();
		}));
	}

	/**
	 * @param shard a shard's pool
	 * @param table a table with an {@code id} column
	 * @return its ids, read as the pool's user
	 * @throws SQLException on a database error
	 */
	public static List<Integer> ids(DataSource shard, String table) throws SQLException {
		List<Integer> ids = new ArrayList<>();
		try (Connection c = shard.getConnection(); Statement st = c.createStatement();
				ResultSet rs = st.executeQuery("SELECT id FROM " + table + " ORDER BY id")) {
			while (rs.next()) {
				ids.add(rs.getInt(1));
			}
		}
		return ids;
	}

}
