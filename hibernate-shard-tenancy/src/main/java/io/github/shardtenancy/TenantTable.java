package io.github.shardtenancy;

import java.util.regex.Pattern;

/**
 * A table that holds tenant rows, and the column naming their tenant. Moves copy, verify and clean exactly these
 * tables; the fence guards writes to exactly these tables.
 *
 * @param table the table name, a plain SQL identifier (optionally schema-qualified)
 * @param tenantColumn the tenant column, a plain SQL identifier
 */
public record TenantTable(String table, String tenantColumn) {

	private static final Pattern IDENTIFIER = Pattern.compile("[A-Za-z_][A-Za-z0-9_]{0,62}(\\.[A-Za-z_][A-Za-z0-9_]{0,62})?");

	/** @throws IllegalArgumentException if either name is not a plain SQL identifier */
	public TenantTable {
		requireIdentifier(table);
		requireIdentifier(tenantColumn);
	}

	private static void requireIdentifier(String identifier) {
		if (identifier == null || !IDENTIFIER.matcher(identifier).matches()) {
			throw new IllegalArgumentException("Not a plain SQL identifier: '" + identifier + "'");
		}
	}

}
