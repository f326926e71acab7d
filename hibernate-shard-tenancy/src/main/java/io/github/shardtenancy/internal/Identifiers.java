package io.github.shardtenancy.internal;

import io.github.shardtenancy.spi.DialectSql;

/** Checks SQL identifiers (table and column names) that must be written into DDL, where they cannot be bound. */
public final class Identifiers {

	private Identifiers() {
	}

	/**
	 * @param identifier a table or column name, optionally schema-qualified
	 * @return the same name
	 * @throws IllegalArgumentException if it is anything but letters, digits and underscores
	 */
	public static String require(String identifier) {
		return DialectSql.identifier(identifier);
	}

}
