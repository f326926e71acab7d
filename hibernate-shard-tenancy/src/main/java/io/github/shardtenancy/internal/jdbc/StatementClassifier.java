package io.github.shardtenancy.internal.jdbc;

import java.util.Locale;

import org.jspecify.annotations.Nullable;

/**
 * Reads the leading words of a statement's SQL: whether it acts on whole tables ({@code TRUNCATE}, DDL other than a
 * temporary table, H2's {@code RUNSCRIPT}, {@code SCRIPT} and {@code BACKUP}), whether it only reads, and the text
 * quoted in errors. Stateless. An early, friendly refusal only: the databases' own controls keep the promise
 * (PostgreSQL's DDL event trigger; on H2 a shard user that is not an administrator).
 */
final class StatementClassifier {

	/** Longest statement text quoted in an error or in {@link io.github.shardtenancy.retry.CommittedWork}. */
	private static final int QUOTED_LENGTH = 120;

	private StatementClassifier() {
	}

	/**
	 * {@code TRUNCATE}, DDL other than a temporary table, or one of H2's commands that run or write a script of the
	 * whole database ({@code RUNSCRIPT}, {@code SCRIPT}, {@code BACKUP}:
	 * <a href="https://h2database.com/html/commands.html#runscript">H2 commands</a>).
	 */
	static boolean actsOnWholeTables(String sql) {
		Words words = new Words(sql);
		String first = words.next();
		return switch (first) {
			case "TRUNCATE", "ALTER", "DROP", "GRANT", "REVOKE", "COMMENT", "RUNSCRIPT", "SCRIPT", "BACKUP" -> true;
			case "CREATE" -> {
				String second = words.next();
				if (second.equals("LOCAL") || second.equals("GLOBAL")) {
					second = words.next();
				}
				yield !(second.equals("TEMPORARY") || second.equals("TEMP"));
			}
			default -> false;
		};
	}

	/** A statement that only reads: {@code SELECT}, {@code SHOW}. */
	static boolean isRead(String sql) {
		String first = new Words(sql).next();
		return first.equals("SELECT") || first.equals("SHOW");
	}

	/**
	 * The table an {@code INSERT INTO t} names, for the retry's check of re-runs
	 * ({@link io.github.shardtenancy.retry.RetryAttempts#inserting}).
	 * @return the table's name, lower case and without schema or quotes, or {@code null} for another statement
	 */
	static @Nullable String insertInto(String sql) {
		Words words = new Words(sql);
		return words.next().equals("INSERT") && words.next().equals("INTO") ? words.name() : null;
	}

	/**
	 * The table an {@code UPDATE [ONLY] t} names, for the retry's check of re-runs
	 * ({@link io.github.shardtenancy.retry.RetryAttempts#updatedNothing}).
	 * @return the table's name, lower case and without schema or quotes, or {@code null} for another statement
	 */
	static @Nullable String updateOf(String sql) {
		Words words = new Words(sql);
		if (!words.next().equals("UPDATE")) {
			return null;
		}
		int at = words.at;
		if (!words.next().equals("ONLY")) {
			words.at = at;
		}
		return words.name();
	}

	/** The statement, stripped and cut to {@value #QUOTED_LENGTH} characters. */
	static String quoted(String sql) {
		String s = sql.strip();
		return s.length() <= QUOTED_LENGTH ? s : s.substring(0, QUOTED_LENGTH) + "...";
	}

	/**
	 * The leading words of a statement, past white space, comments and opening parentheses, told apart by the
	 * {@link #KEYWORDS} they are (case-insensitive), without copying the statement.
	 */
	private static final class Words {

		/** Every word the classifier asks about. */
		private static final String[] KEYWORDS = { "SELECT", "SHOW", "TRUNCATE", "ALTER", "DROP", "GRANT", "REVOKE",
				"COMMENT", "RUNSCRIPT", "SCRIPT", "BACKUP", "CREATE", "LOCAL", "GLOBAL", "TEMPORARY", "TEMP", "INSERT", "INTO",
				"UPDATE", "ONLY" };

		private final String sql;

		private int at;

		Words(String sql) {
			this.sql = sql;
		}

		/**
		 * @return the next word as one of the {@link #KEYWORDS} (upper case), or "" for another word, at the end or
		 * before anything that is not a word
		 */
		String next() {
			skip();
			int start = this.at;
			while (this.at < this.sql.length() && Character.isLetter(this.sql.charAt(this.at))) {
				this.at++;
			}
			int length = this.at - start;
			for (String keyword : KEYWORDS) {
				if (keyword.length() == length && this.sql.regionMatches(true, start, keyword, 0, length)) {
					return keyword;
				}
			}
			return "";
		}

		/**
		 * @return the next name ({@code schema.table}, each part possibly in double quotes) as its last part, lower
		 * case unless quoted, or {@code null} if no name follows
		 */
		@Nullable String name() {
			skip();
			String last = null;
			while (this.at < this.sql.length()) {
				char c = this.sql.charAt(this.at);
				int start;
				if (c == '"') {
					int end = this.sql.indexOf('"', this.at + 1);
					if (end < 0) {
						return null;
					}
					last = this.sql.substring(this.at + 1, end);
					this.at = end + 1;
				}
				else if (Character.isLetter(c) || c == '_') {
					start = this.at;
					while (this.at < this.sql.length() && (Character.isLetterOrDigit(this.sql.charAt(this.at))
							|| this.sql.charAt(this.at) == '_' || this.sql.charAt(this.at) == '$')) {
						this.at++;
					}
					last = this.sql.substring(start, this.at).toLowerCase(Locale.ROOT);
				}
				else {
					return null;
				}
				if (this.at < this.sql.length() && this.sql.charAt(this.at) == '.') {
					this.at++;
				}
				else {
					return last;
				}
			}
			return last;
		}

		private void skip() {
			int n = this.sql.length();
			while (this.at < n) {
				char c = this.sql.charAt(this.at);
				if (Character.isWhitespace(c) || c == '(') {
					this.at++;
				}
				else if (c == '-' && this.sql.startsWith("--", this.at)) {
					int end = this.sql.indexOf('\n', this.at);
					this.at = end < 0 ? n : end + 1;
				}
				else if (c == '/' && this.sql.startsWith("/*", this.at)) {
					int end = this.sql.indexOf("*/", this.at + 2);
					this.at = end < 0 ? n : end + 2;
				}
				else {
					return;
				}
			}
		}

	}

}
