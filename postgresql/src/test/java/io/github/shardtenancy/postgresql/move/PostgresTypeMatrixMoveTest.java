package io.github.shardtenancy.postgresql.move;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;

import javax.sql.DataSource;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.github.shardtenancy.testing.move.TypeMatrixMoveScenarios;
import io.github.shardtenancy.testing.pg.ScratchPostgres;
import org.junit.jupiter.api.DisplayName;

/**
 * {@link TypeMatrixMoveScenarios} on embedded PostgreSQL: the built-in types, a collation other than the database's
 * (ICU's root locale, if the server has ICU), {@code citext} (if the server has the extension), an enum, a domain
 * with a CHECK, a composite type, ranges and multiranges, a table whose only key is a uuid that is not its first
 * column, and one whose key is {@code (text, int, date)}. Each column's text form is {@code col::text}.
 */
@DisplayName("Online move on PostgreSQL: every built-in column type moves exactly under writers (compared as text "
		+ "by the database)")
class PostgresTypeMatrixMoveTest extends TypeMatrixMoveScenarios {

	private static final String APPLICATION_ROLE = "matrix_app";

	private final List<HikariDataSource> applicationPools = new ArrayList<>();

	/** A server of each test: its databases' names never clash. */
	private ScratchPostgres postgres;

	@Override
	protected DataSource directory() {
		this.postgres = ScratchPostgres.start("type-matrix");
		return database("directory", 4);
	}

	@Override
	protected DataSource shard(String shardId) {
		return database(shardId.replace("-", "_"), 12);
	}

	/**
	 * A login role that is neither a superuser nor the tables' owner, granted the application's privileges on the
	 * shard's tables and sequences (the change log's among them): row-level security applies to it, so PostgreSQL
	 * refuses it {@code COPY FROM} into a tenant table and the mover copies with multi-row INSERTs.
	 */
	@Override
	protected DataSource applicationShard(String shardId, DataSource owner) throws SQLException {
		try (Connection c = owner.getConnection(); Statement s = c.createStatement()) {
			if (!exists(c, "SELECT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = '" + APPLICATION_ROLE + "')")) {
				s.execute("CREATE ROLE " + APPLICATION_ROLE + " LOGIN PASSWORD '" + APPLICATION_ROLE
						+ "' NOSUPERUSER NOBYPASSRLS");
			}
			s.execute("GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA public TO " + APPLICATION_ROLE);
			s.execute("GRANT USAGE, SELECT ON ALL SEQUENCES IN SCHEMA public TO " + APPLICATION_ROLE);
		}
		HikariConfig config = ScratchPostgres.configLike((HikariDataSource) owner, 12);
		config.setUsername(APPLICATION_ROLE);
		config.setPassword(APPLICATION_ROLE);
		HikariDataSource pool = new HikariDataSource(config);
		this.applicationPools.add(pool);
		return pool;
	}

	@Override
	protected void closeDatabases() {
		this.applicationPools.forEach(HikariDataSource::close);
		if (this.postgres != null) {
			this.postgres.close();
		}
	}

	private DataSource database(String name, int size) {
		try {
			return this.postgres.createDatabase(name, size);
		}
		catch (SQLException ex) {
			throw new IllegalStateException(ex);
		}
	}

	@Override
	protected String text(Column column) {
		return "%s::text";
	}

	@Override
	protected Schema schema(Connection shard) throws SQLException {
		int major = shard.getMetaData().getDatabaseMajorVersion();
		boolean icu = exists(shard, "SELECT EXISTS (SELECT 1 FROM pg_collation WHERE collname = 'und-x-icu')");
		boolean citext = exists(shard, "SELECT EXISTS (SELECT 1 FROM pg_available_extensions WHERE name = 'citext')");
		List<String> setup = new ArrayList<>();
		List<TypeTable> tables = new ArrayList<>();
		List<String> skipped = new ArrayList<>();
		setup.add("CREATE TYPE matrix_mood AS ENUM ('sad', 'ok', 'happy', 'with space')");
		setup.add("CREATE DOMAIN matrix_code AS text CHECK (VALUE ~ '^[A-Z]{2}-[0-9]+$')");
		setup.add("CREATE TYPE matrix_pair AS (label text, amount numeric, at timestamptz, tags text[])");

		List<String> numeric = new ArrayList<>(List.of("'NaN'", "NULL",
				"'123456789012345678901234567890.123456789012345678901234567890'",
				"'-0.000000000000000000000000000000000000001'",
				"(repeat('9', 500) || '.' || repeat('1', 500))::numeric",
				"0", "'1e-300'"));
		// numeric infinity, multiranges: PostgreSQL 14 (https://www.postgresql.org/docs/14/release-14.html)
		if (major >= 14) {
			numeric.addAll(List.of("'Infinity'", "'-Infinity'"));
		}
		else {
			skipped.add("numeric 'Infinity': PostgreSQL " + major + " has none (14 and later)");
		}
		tables.add(table("t_numeric", "numeric (NaN, 1000 digits), real and double precision (NaN, -0, Infinity), "
				+ "money", column("n", "numeric", numeric.toArray(String[]::new)),
				column("fixed", "numeric(38,10)", "'1234567890123456789012345678.1234567891'", "NULL",
						"'-0.0000000001'", "0"),
				column("r", "real", "'NaN'", "'-0'", "'Infinity'", "'-Infinity'", "NULL", "'3.4028235e38'",
						"'1.4e-45'", "'0.1'"),
				column("d", "double precision", "'NaN'", "'-0'", "'Infinity'", "'-Infinity'", "NULL",
						"'1.7976931348623157e308'", "'4.9e-324'", "'0.1'"),
				column("m", "money", "'92233720368547758.07'", "'-92233720368547758.08'", "NULL", "'0.01'",
						"'-1234.5'")));
		tables.add(table("t_bytea", "bytea: empty, every byte value, 10 kB compressible, > 1 MB incompressible "
				+ "(TOASTed out of line)", new Column("b", "bytea", null, v -> switch (Math.floorMod(v, 6)) {
					case 0 -> "'\\x'::bytea";
					case 1 -> "NULL";
					case 2 -> "'\\x00ff00ff'::bytea";
					case 3 -> "(SELECT string_agg(set_byte('\\x00'::bytea, 0, i), ''::bytea ORDER BY i) "
							+ "FROM generate_series(0, 255) i)";
					case 4 -> "decode(repeat('00ff', 5000), 'hex')";
					// 70000 x 16 bytes of md5: 1.1 MB that pglz cannot compress, seeded by the variant
					default -> "(SELECT string_agg(decode(md5(i::text || '/" + v + "'), 'hex'), ''::bytea ORDER BY i) "
							+ "FROM generate_series(1, 70000) i)";
				}), column("small", "bytea", "'\\x7f80'::bytea", "NULL")));
		// Every value over 1 MB, so that the checks below find one whatever variant each row of t_bytea ended with.
		tables.add(table("t_bytea_big", "bytea, every value > 1 MB incompressible (TOASTed out of line)",
				new Column("b", "bytea", null, v -> "(SELECT string_agg(decode(md5(i::text || '/" + v
						+ "'), 'hex'), ''::bytea ORDER BY i) FROM generate_series(1, 70000) i)")));
		String[] texts = { "'plain'", "NULL", "''", "'ÄÖÜ äöü ß 日本語 🎉'", "'quote '' and \\ backslash'",
				"E'tab\\tnewline\\ncarriage return\\r'", "'NULL'", "'\\N'" };
		List<Column> textColumns = new ArrayList<>();
		textColumns.add(column("c", "text COLLATE \"C\"", texts));
		if (icu) {
			textColumns.add(column("icu", "text COLLATE \"und-x-icu\"", texts));
		}
		else {
			skipped.add("text COLLATE \"und-x-icu\": the server has no ICU collations (pg_collation)");
		}
		textColumns.add(column("vc", "varchar(20)", "'short'", "NULL", "'exactly twenty chars'"));
		textColumns.add(column("fixed", "char(5)", "'ab'", "NULL", "'abcde'", "''"));
		textColumns.add(column("u", "uuid", "'00000000-0000-0000-0000-000000000000'",
				"'FFFFFFFF-FFFF-FFFF-FFFF-FFFFFFFFFFFF'", "NULL", "'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'"));
		textColumns.add(column("flag", "boolean", "true", "NULL", "false"));
		textColumns.add(column("small", "smallint", "-32768", "32767", "NULL"));
		textColumns.add(column("big", "bigint", "-9223372036854775808", "9223372036854775807", "NULL"));
		tables.add(table("t_text", "text COLLATE \"C\" and \"und-x-icu\", varchar, char(n), uuid, boolean, "
				+ "smallint, bigint", textColumns.toArray(Column[]::new)));
		if (citext) {
			setup.add("CREATE EXTENSION IF NOT EXISTS citext");
			tables.add(table("t_citext", "citext (copied with the target's triggers: it compares other than byte "
					+ "by byte)", column("ci", "citext", "'MiXeD Case'", "'mixed case'", "NULL", "'ÄÖÜ'", "''")));
		}
		else {
			skipped.add("citext: the extension is not available on the server (pg_available_extensions)");
		}
		String[] json = { "'{\"b\": 1,   \"a\": [1, 2.50, {\"z\": null}]}'", "NULL", "'{\"a\":1,\"a\":2}'",
				"'  [ ]  '", "'null'", "'\"\\u00e9 escaped\"'", "'1e1000'" };
		tables.add(table("t_json", "json (whitespace, key order, duplicate keys kept), jsonb, xml (no equality)",
				column("j", "json", json), column("jb", "jsonb", json),
				column("x", "xml", "'<a b=\"1\">text &amp; more</a>'", "NULL",
						"'<?xml version=\"1.0\" encoding=\"UTF-8\"?><root><c/></root>'", "'plain text content'",
						"'<a/><b>  spaced  </b>'", "'<![CDATA[x < y]]>'")));
		tables.add(table("t_array", "int[], text[], numeric[]: NULL elements, multi-dimensional, lower bounds",
				column("ia", "int[]", "'{1,NULL,3}'", "NULL", "'{}'", "'{{1,2},{3,NULL}}'", "'[0:2]={7,8,9}'",
						"'{NULL}'"),
				column("ta", "text[]",
						"ARRAY['a', 'NULL', NULL, 'with,comma', 'quo\"te', '', 'back\\slash', '{brace}']", "NULL",
						"'{}'::text[]", "ARRAY[['a', 'b'], ['c', NULL]]", "'[-1:-1]={x}'::text[]"),
				column("na", "numeric[]", "'{NaN,1.5,NULL}'", "NULL", "'{{0.1},{-0.1}}'")));
		List<Column> ranges = new ArrayList<>(List.of(
				column("r", "int4range", "'[1,10)'", "NULL", "'empty'", "'(,5]'", "'[3,)'", "'(,)'"),
				column("tr", "tstzrange", "'[2024-01-01 00:00:00+00,2024-12-31 23:59:59.999999+00)'", "NULL",
						"'empty'", "'[-infinity,infinity]'", "'(,2000-01-01 00:00+05:30]'"),
				column("dr", "daterange", "'[2024-01-01,2024-02-01)'", "'[2024-01-01,2024-01-01]'", "NULL")));
		if (major >= 14) {
			ranges.add(column("mr", "int4multirange", "'{}'", "NULL", "'{[1,3), [5,8)}'", "'{(,0], [10,)}'"));
			ranges.add(column("tmr", "tstzmultirange",
					"'{[2024-01-01 00:00+00,2024-01-02 00:00+00), [2025-01-01 00:00+00,infinity)}'", "NULL"));
		}
		else {
			skipped.add("multiranges: PostgreSQL " + major + " has none (14 and later)");
		}
		tables.add(table("t_range", "int4range, tstzrange, daterange, int4multirange, tstzmultirange",
				ranges.toArray(Column[]::new)));
		tables.add(table("t_composite", "a composite type (and an array of it), an enum, a domain over text with a "
				+ "CHECK",
				column("pair", "matrix_pair", "ROW('x', 1.5, '2024-01-01 00:00+00', ARRAY['a','b'])::matrix_pair",
						"NULL", "ROW(NULL, NULL, NULL, NULL)::matrix_pair",
						"ROW('comma, \"quote\" (paren)', 'NaN', 'infinity', '{}')::matrix_pair",
						"ROW('', -0.5, '-infinity', ARRAY[NULL, 'n'])::matrix_pair"),
				column("pairs", "matrix_pair[]", "ARRAY[ROW('a', 1, NULL, NULL)::matrix_pair, NULL]", "NULL"),
				column("mood", "matrix_mood", "'sad'", "'happy'", "NULL", "'with space'"),
				column("code", "matrix_code", "'AB-1'", "NULL", "'ZZ-1234567890'")));
		List<String> intervals = new ArrayList<>(List.of("'1 year 2 mons 3 days 04:05:06.789012'", "NULL",
				"'-1 days +02:03:04'", "'0'", "'178000000 years'", "'-0.000001 seconds'"));
		// infinite intervals, pg_column_toast_chunk_id: PostgreSQL 17
		// (https://www.postgresql.org/docs/17/release-17.html)
		if (major >= 17) {
			intervals.addAll(List.of("'infinity'", "'-infinity'"));
		}
		else {
			skipped.add("interval 'infinity': PostgreSQL " + major + " has none (17 and later)");
		}
		tables.add(table("t_time", "interval, date, time, timetz, timestamp, timestamptz: infinity, BC, "
				+ "microseconds, 24:00, offsets",
				column("iv", "interval", intervals.toArray(String[]::new)),
				column("d", "date", "'2024-02-29'", "NULL", "'infinity'", "'-infinity'", "'4713-01-01 BC'",
						"'5874897-12-31'"),
				column("t", "time", "'00:00:00'", "NULL", "'23:59:59.999999'", "'24:00:00'", "'12:34:56.789012'"),
				column("tz", "timetz", "'12:34:56.789012+05:45'", "NULL", "'00:00:00-15:59'",
						"'23:59:59.999999+15:59'", "'24:00:00+00'"),
				column("ts", "timestamp", "'2024-02-29 12:34:56.789012'", "NULL", "'infinity'", "'-infinity'",
						"'4713-01-01 00:00:00 BC'", "'294276-12-31 23:59:59.999999'", "'1970-01-01 00:00:00'"),
				column("tstz", "timestamptz", "'2024-02-29 12:34:56.789012+05:45'", "NULL", "'infinity'",
						"'-infinity'", "'1900-01-01 00:00:00+00'", "'0044-03-15 12:00:00+00 BC'")));
		tables.add(table("t_net", "inet, cidr, macaddr, macaddr8, bit(8), varbit, tsvector, tsquery",
				column("ip", "inet", "'192.168.0.1/24'", "NULL", "'::1'", "'2001:db8::ff00:42:8329/64'",
						"'10.0.0.1'", "'::ffff:1.2.3.4'"),
				column("net", "cidr", "'10.0.0.0/8'", "NULL", "'2001:db8::/32'", "'192.168.1.0/24'"),
				column("mac", "macaddr", "'08:00:2b:01:02:03'", "NULL", "'FF-FF-FF-FF-FF-FF'"),
				column("mac8", "macaddr8", "'08:00:2b:01:02:03:04:05'", "NULL"),
				column("b8", "bit(8)", "B'10101010'", "NULL", "B'00000000'", "B'11111111'"),
				column("vb", "varbit", "B''", "NULL", "B'1'", "B'1010101010101010101'"),
				column("tsv", "tsvector", "'a fat cat:1A sat:2B,3'", "NULL", "''", "$$'with space' 'it''s'$$"),
				column("tq", "tsquery", "'fat & (rat | cat)'", "NULL", "'!a <-> b:*'")));
		tables.add(table("t_geo", "point, box, polygon, circle, line, lseg, path",
				column("p", "point", "'(1.5,-2)'", "NULL", "'(0,0)'", "'(1e300,-1e-300)'", "'(-0,0.1)'"),
				column("bx", "box", "'((0,0),(1,1))'", "NULL", "'((3,4.25),(-1.5,2))'"),
				column("pg", "polygon", "'((0,0),(1,0),(0.5,1))'", "NULL", "'((0,0))'"),
				column("c", "circle", "'<(0,0),1.5>'", "NULL", "'<(1e-10,-3),0>'"),
				column("ln", "line", "'{1,-1,0}'", "NULL"), column("ls", "lseg", "'[(0,0),(1,1)]'", "NULL"),
				column("pa", "path", "'[(0,0),(1,1),(2,0)]'", "'((0,0),(1,1),(2,0))'", "NULL")));
		tables.add(uuidKeyTable("primary key: one uuid column, not the first", "text", "uuid",
				column("doc", "jsonb", "'{\"k\": [1, 2]}'", "NULL")));
		tables.add(compositeKeyTable("primary key (text, int, date), dates infinite and BC", "text", "date",
				List.of("DATE '2024-02-29'", "DATE 'infinity'", "DATE '-infinity'", "DATE '0044-03-15 BC'",
						"DATE '1999-12-31'"),
				column("amount", "numeric", "'1.50'", "NULL", "'NaN'")));
		tables.add(new TypeTable("t_numeric_key", "primary key (tenant_id, numeric): NaN and infinities among the keys",
				List.of(tenantColumn(tenantType()), key("n", "numeric NOT NULL", v -> switch (v) {
					case 0 -> "'NaN'";
					case 1 -> "'Infinity'";
					case 2 -> "'-Infinity'";
					default -> "'" + v + ".50'";
				}), column("note", "text", "'x'", "NULL")), List.of(TENANT_COLUMN, "n")));
		// The catch-up looks keys up as text arrays cast to each key column's catalog type (key-list.sql): an enum, a
		// domain with a CHECK, a varchar(40) whose values hold what array literals and quoting treat specially, a
		// timestamptz and a numeric(10,2) among the keys.
		tables.add(new TypeTable("t_typed_key", "primary key (tenant_id, enum, domain, varchar(40), timestamptz, "
				+ "numeric(10,2)): values with quotes, braces, commas and backslashes", List.of(tenantColumn(tenantType()),
						key("k_mood", "matrix_mood NOT NULL", v -> List.of("'sad'", "'with space'", "'happy'").get(v % 3)),
						key("k_code", "matrix_code NOT NULL", v -> "'AB-" + (v % 5) + "'"),
						key("k_label", "varchar(40) NOT NULL", v -> List.of("'a\"b''c'", "'{x,y}'", "'back\\slash'",
								"'NULL'", "''", "'comma, ok'").get(v % 6)),
						key("k_at", "timestamptz NOT NULL", v -> "TIMESTAMPTZ '2024-03-31 01:30:00.123456+02' + interval '"
								+ v + " hours'"),
						key("k_amount", "numeric(10,2) NOT NULL", v -> "'" + v + ".25'"),
						column("note", "text", "'x'", "NULL")),
				List.of(TENANT_COLUMN, "k_mood", "k_code", "k_label", "k_at", "k_amount")));
		List<String> checks = new ArrayList<>();
		checks.add("SELECT COUNT(*) > 0 FROM t_bytea_big WHERE tenant_id = ? AND octet_length(b) > 1048576");
		checks.add("SELECT COUNT(*) > 0 FROM t_json WHERE tenant_id = ? AND j::text = " + json[0]);
		// The mover refreshed the target's statistics after the copy (ANALYZE, FenceDialect.analyze) of every table,
		// as the superuser; the application role may not ANALYZE tables it does not own (PostgreSQL skips them with a
		// warning), so there they are left to autovacuum.
		checks.add("SELECT (coalesce(bool_and(s.last_analyze IS NOT NULL), false) OR EXISTS (SELECT 1 FROM pg_roles "
				+ "WHERE rolname = '" + APPLICATION_ROLE + "')) AND ?::text IS NOT NULL FROM pg_stat_user_tables s "
				+ "WHERE s.relname LIKE 't\\_%'");
		if (major >= 17) {
			// NULL unless the value is stored out of line in the TOAST table
			// (https://www.postgresql.org/docs/17/functions-admin.html#FUNCTIONS-ADMIN-DBOBJECT)
			checks.add("SELECT COUNT(*) > 0 FROM t_bytea_big WHERE tenant_id = ? AND pg_column_toast_chunk_id(b) IS NOT "
					+ "NULL");
		}
		return new Schema(setup, tables, skipped, checks);
	}

	private static boolean exists(Connection c, String sql) throws SQLException {
		try (PreparedStatement ps = c.prepareStatement(sql); ResultSet rs = ps.executeQuery()) {
			return rs.next() && rs.getBoolean(1);
		}
	}

}
