package io.github.shardtenancy.internal.jdbc;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import org.jspecify.annotations.Nullable;

/**
 * What the connection layer reads from a statement's SQL, read once per distinct SQL text: whether it acts on whole
 * tables ({@link StatementClassifier#actsOnWholeTables}), whether it only reads ({@link StatementClassifier#isRead}),
 * whether it may travel with the fence begin ({@link FenceBegin#canTravelWith}), and the text of begin and query
 * ({@code beginStatement; sql}) for the begin statement it was last asked for.
 *
 * <p>An application's statements are few and their texts constant (Hibernate's are built once per entity and
 * operation), so the answers are kept in a map bounded to {@value #MAX_ENTRIES} texts of at most
 * {@value #MAX_SQL_LENGTH} characters; past that, statements are read on each use, as without the map. Keeping the
 * combined text also hands the driver the same {@code String} for the same statement, whose hash the driver's statement
 * cache then reads from the string instead of computing it. Thread-safe.
 */
final class SqlShape {

	/** Most distinct texts kept; statements built with literals inlined would otherwise grow the map without end. */
	static final int MAX_ENTRIES = 2048;

	/** Longest text kept. */
	static final int MAX_SQL_LENGTH = 8192;

	private static final Map<String, SqlShape> SHAPES = new ConcurrentHashMap<>();

	final boolean actsOnWholeTables;

	final boolean read;

	final boolean canTravelWithBegin;

	/** The table an {@code INSERT} names ({@link StatementClassifier#insertInto}), or {@code null}. */
	final @Nullable String insertInto;

	/** The table an {@code UPDATE} names ({@link StatementClassifier#updateOf}), or {@code null}. */
	final @Nullable String updateOf;

	private final String sql;

	/** The last text of begin and query built, with the begin statement it was built for. */
	private volatile @Nullable WithBegin withBegin;

	private SqlShape(String sql) {
		this.sql = sql;
		this.actsOnWholeTables = StatementClassifier.actsOnWholeTables(sql);
		this.read = StatementClassifier.isRead(sql);
		this.canTravelWithBegin = FenceBegin.canTravelWith(sql);
		this.insertInto = StatementClassifier.insertInto(sql);
		this.updateOf = this.insertInto == null ? StatementClassifier.updateOf(sql) : null;
	}

	/**
	 * @param sql a statement's SQL
	 * @return its shape, kept for the next use of the same text while the map has room
	 */
	static SqlShape of(String sql) {
		SqlShape shape = SHAPES.get(sql);
		if (shape != null) {
			return shape;
		}
		shape = new SqlShape(sql);
		if (sql.length() <= MAX_SQL_LENGTH && SHAPES.size() < MAX_ENTRIES) {
			SqlShape raced = SHAPES.putIfAbsent(sql, shape);
			if (raced != null) {
				return raced;
			}
		}
		return shape;
	}

	/**
	 * @param beginStatement the dialect's begin statement
	 * @return {@code beginStatement; sql}, the same instance for the same begin statement while it stays the last one
	 * asked for
	 */
	String withBegin(String beginStatement) {
		WithBegin last = this.withBegin;
		if (last != null && last.beginStatement.equals(beginStatement)) {
			return last.text;
		}
		String text = beginStatement + ";\n" + this.sql;
		this.withBegin = new WithBegin(beginStatement, text);
		return text;
	}

	/** @return how many texts are kept (for tests) */
	static int size() {
		return SHAPES.size();
	}

	/** Forgets every kept text (for tests). */
	static void forgetAll() {
		SHAPES.clear();
	}

	private record WithBegin(String beginStatement, String text) {
	}

}
