package io.github.shardtenancy.internal.hibernate;

import java.util.List;
import java.util.Objects;

import io.github.shardtenancy.EntityCheck;

/**
 * What the {@link EntityTenancyIntegrator} needs from the tenancy: the check's setting and the reference tables
 * declared by name (known before any session factory is built). Immutable.
 * @param check what an entity that is neither tenant nor reference data does to the session factory's build
 * @param declaredReferenceTables the reference tables declared by name, as given (any case, optionally
 * schema-qualified)
 */
public record EntityTenancy(EntityCheck check, List<String> declaredReferenceTables) {

	/**
	 * @param check never {@code null}
	 * @param declaredReferenceTables never {@code null}; copied
	 */
	public EntityTenancy {
		Objects.requireNonNull(check, "check");
		declaredReferenceTables = List.copyOf(declaredReferenceTables);
	}

}
