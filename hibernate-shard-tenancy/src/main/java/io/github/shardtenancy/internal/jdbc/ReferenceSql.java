package io.github.shardtenancy.internal.jdbc;

import java.util.LinkedHashSet;
import java.util.Locale;
import java.util.Set;

/**
 * Reads the tables a query names: every name after {@code FROM} or {@code JOIN} (and after a comma that continues a
 * {@code FROM} list), at any depth of parentheses, unquoted and in lower case, past string literals and comments.
 * Anything in a table position that is not a plain name (a function, {@code LATERAL}, a CTE's name) is returned as the
 * word found there, so that a caller that allows only known tables refuses it. Stateless.
 */
final class ReferenceSql {

	private ReferenceSql() {
	}

	/**
	 * @param sql a statement
	 * @return the names in table positions (schema-qualified names as written, lower case); empty if it names none
	 */
	static Set<String> tablesNamed(String sql) {
		java.util.List<String> tokens = tokens(sql);
		Set<String> tables = new LinkedHashSet<>();
		for (int i = 0; i < tokens.size(); i++) {
			String token = tokens.get(i);
			if (!token.equals("from") && !token.equals("join")) {
				continue;
			}
			int at = i + 1;
			while (at < tokens.size()) {
				String name = tokens.get(at);
				if (name.equals("(")) {
					break; // a subquery: its own FROM is read when the loop reaches it
				}
				tables.add(name);
				at++;
				// An optional alias, with or without AS.
				if (at < tokens.size() && tokens.get(at).equals("as")) {
					at++;
				}
				if (at < tokens.size() && isAlias(tokens.get(at))) {
					at++;
				}
				if (at < tokens.size() && tokens.get(at).equals(",") && token.equals("from")) {
					at++;
					continue;
				}
				break;
			}
		}
		return tables;
	}

	/**
	 * @param sql a statement that is not a read
	 * @return the tables it writes: the names after {@code INTO} ({@code INSERT}, {@code MERGE}), after {@code UPDATE}
	 * but {@code FOR UPDATE} / {@code ON UPDATE} / {@code DO UPDATE}, and after {@code DELETE FROM}; lower case
	 */
	static Set<String> writeTargets(String sql) {
		java.util.List<String> tokens = tokens(sql);
		Set<String> targets = new LinkedHashSet<>();
		for (int i = 0; i + 1 < tokens.size(); i++) {
			String token = tokens.get(i);
			String previous = i > 0 ? tokens.get(i - 1) : "";
			if (token.equals("into")) {
				targets.add(tokens.get(i + 1));
			}
			else if (token.equals("update") && !previous.equals("for") && !previous.equals("on")
					&& !previous.equals("do")) {
				targets.add(tokens.get(i + 1));
			}
			else if (token.equals("delete") && tokens.get(i + 1).equals("from") && i + 2 < tokens.size()) {
				targets.add(tokens.get(i + 2));
			}
		}
		return targets;
	}

	private static final Set<String> NOT_ALIASES = Set.of("where", "join", "left", "right", "inner", "outer", "cross",
			"full", "natural", "on", "using", "group", "order", "limit", "offset", "fetch", "union", "intersect",
			"except", "for", "having", "window", "lateral", ",", "(", ")", ";");

	private static boolean isAlias(String token) {
		return !NOT_ALIASES.contains(token);
	}

	/** Words (identifiers, quoted identifiers unquoted) in lower case and single punctuation characters. */
	private static java.util.List<String> tokens(String sql) {
		java.util.List<String> tokens = new java.util.ArrayList<>();
		int n = sql.length();
		int i = 0;
		while (i < n) {
			char c = sql.charAt(i);
			if (Character.isWhitespace(c)) {
				i++;
			}
			else if (c == '-' && i + 1 < n && sql.charAt(i + 1) == '-') {
				int end = sql.indexOf('\n', i);
				i = end < 0 ? n : end + 1;
			}
			else if (c == '/' && i + 1 < n && sql.charAt(i + 1) == '*') {
				int end = sql.indexOf("*/", i + 2);
				i = end < 0 ? n : end + 2;
			}
			else if (c == '\'') {
				i = skipQuoted(sql, i, '\'');
				tokens.add("'");
			}
			else if (c == '"' || c == '`') {
				int end = skipQuoted(sql, i, c);
				StringBuilder name = new StringBuilder(sql.substring(i + 1, Math.max(i + 1, end - 1)));
				// A qualified name continues after the closing quote: "schema"."table".
				while (end < n && sql.charAt(end) == '.') {
					int start = end + 1;
					if (start < n && (sql.charAt(start) == '"' || sql.charAt(start) == '`')) {
						int close = skipQuoted(sql, start, sql.charAt(start));
						name.append('.').append(sql, start + 1, Math.max(start + 1, close - 1));
						end = close;
					}
					else {
						int close = wordEnd(sql, start);
						name.append('.').append(sql, start, close);
						end = close;
					}
				}
				tokens.add(name.toString().toLowerCase(Locale.ROOT));
				i = end;
			}
			else if (isWordChar(c)) {
				int end = wordEnd(sql, i);
				while (end + 1 < n && sql.charAt(end) == '.' && (sql.charAt(end + 1) == '"'
						|| sql.charAt(end + 1) == '`')) {
					int close = skipQuoted(sql, end + 1, sql.charAt(end + 1));
					end = close;
				}
				tokens.add(sql.substring(i, end).replace("\"", "").replace("`", "").toLowerCase(Locale.ROOT));
				i = end;
			}
			else {
				tokens.add(String.valueOf(c));
				i++;
			}
		}
		return tokens;
	}

	private static boolean isWordChar(char c) {
		return Character.isLetterOrDigit(c) || c == '_' || c == '$';
	}

	private static int wordEnd(String sql, int start) {
		int end = start;
		while (end < sql.length() && (isWordChar(sql.charAt(end)) || sql.charAt(end) == '.')) {
			end++;
		}
		return end;
	}

	/** @return the index after the closing quote (a doubled quote is an escaped one) */
	private static int skipQuoted(String sql, int open, char quote) {
		int i = open + 1;
		while (i < sql.length()) {
			if (sql.charAt(i) == quote) {
				if (i + 1 < sql.length() && sql.charAt(i + 1) == quote) {
					i += 2;
					continue;
				}
				return i + 1;
			}
			i++;
		}
		return sql.length();
	}

}
