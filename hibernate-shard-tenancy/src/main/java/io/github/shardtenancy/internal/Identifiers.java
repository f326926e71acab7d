package io.github.shardtenancy.internal;

import java.util.regex.Pattern;

/** Checks SQL identifiers (table and column names) that must be written into DDL, where they cannot be bound. */
public final class Identifiers {

	private static final Pattern IDENTIFIER = Pattern.compile("[A-Za-z_][A-Za-z0-9_]{0,62}(\\.[A-Za-z_][A-Za-z0-9_]{0,62})?");

	private Identifiers() {
	}

	/**
	 * @param identifier a table or column name, optionally schema-qualified
	 * @return the same name
	 * @throws IllegalArgumentException if it is anything but letters, digits and underscores
	 */
	public static String require(String identifier) {
		if (identifier == null || !IDENTIFIER.matcher(identifier).matches()) {
			throw new IllegalArgumentException("Not a plain SQL identifier: '" + identifier + "'");
		}
		return identifier;
	}

}
