package io.github.shardtenancy.internal.jdbc;

/**
 * Reads the leading words of a statement's SQL: whether it acts on whole tables ({@code TRUNCATE}, DDL other than a
 * temporary table), whether it only reads, and the text quoted in errors. Stateless.
 */
final class StatementClassifier {

	/** Longest statement text quoted in an error or in {@link io.github.shardtenancy.retry.CommittedWork}. */
	private static final int QUOTED_LENGTH = 120;

	private StatementClassifier() {
	}

	/** {@code TRUNCATE} or DDL other than a temporary table. */
	static boolean actsOnWholeTables(String sql) {
		Words words = new Words(sql);
		String first = words.next();
		return switch (first) {
			case "TRUNCATE", "ALTER", "DROP", "GRANT", "REVOKE", "COMMENT" -> true;
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
				"COMMENT", "CREATE", "LOCAL", "GLOBAL", "TEMPORARY", "TEMP" };

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
