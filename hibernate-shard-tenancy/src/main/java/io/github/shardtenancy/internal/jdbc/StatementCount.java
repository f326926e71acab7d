package io.github.shardtenancy.internal.jdbc;

import java.sql.Connection;
import java.sql.SQLException;

import io.github.shardtenancy.spi.FenceDialect;

/**
 * Whether a SQL text holds one statement, as the shard's driver splits it ({@link FenceDialect#statementCount}); for
 * a dialect that cannot tell, by a reading of quotes and comments here, which is an early check only. Stateless.
 */
public final class StatementCount {

	private StatementCount() {
	}

	/**
	 * @param dialect the shard's dialect
	 * @param connection a connection of the shard the SQL will run on
	 * @param sql the SQL text
	 * @return whether it holds exactly one statement
	 * @throws SQLException if the driver cannot read the text
	 */
	public static boolean isOne(FenceDialect dialect, Connection connection, String sql) throws SQLException {
		int count = dialect.statementCount(connection, sql);
		return count < 0 ? readsAsOne(sql) : count == 1;
	}

	/**
	 * @return whether the SQL holds one statement: no {@code ;} outside quotes and comments but a trailing one
	 */
	static boolean readsAsOne(String sql) {
		int n = sql.length();
		for (int i = 0; i < n; i++) {
			char c = sql.charAt(i);
			if (c == '\'' || c == '"') {
				int close = sql.indexOf(c, i + 1);
				if (close < 0) {
					return false;
				}
				i = close;
			}
			else if (c == '-' && i + 1 < n && sql.charAt(i + 1) == '-') {
				int eol = sql.indexOf('\n', i);
				i = eol < 0 ? n : eol;
			}
			else if (c == '/' && i + 1 < n && sql.charAt(i + 1) == '*') {
				int close = sql.indexOf("*/", i + 2);
				if (close < 0) {
					return false;
				}
				i = close + 1;
			}
			else if (c == ';' && !sql.substring(i + 1).isBlank()) {
				return false;
			}
		}
		return true;
	}

}
