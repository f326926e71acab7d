package io.github.shardtenancy;

import io.github.shardtenancy.internal.Identifiers;

/**
 * A table that holds tenant rows, and the column naming their tenant. Moves copy, verify and clean exactly these
 * tables; the fence guards writes to exactly these tables.
 *
 * @param table the table name, a plain SQL identifier (optionally schema-qualified)
 * @param tenantColumn the tenant column, a plain SQL identifier
 */
public record TenantTable(String table, String tenantColumn) {

	/** @throws IllegalArgumentException if either name is not a plain SQL identifier */
	public TenantTable {
		Identifiers.require(table);
		Identifiers.require(tenantColumn);
	}

}
