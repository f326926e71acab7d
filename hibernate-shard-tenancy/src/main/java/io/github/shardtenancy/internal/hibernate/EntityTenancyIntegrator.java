package io.github.shardtenancy.internal.hibernate;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;

import io.github.shardtenancy.EntityCheck;
import io.github.shardtenancy.ReferenceData;
import io.github.shardtenancy.ShardTenancyConfigurationException;
import org.hibernate.SessionFactory;
import org.hibernate.SessionFactoryObserver;
import org.hibernate.boot.Metadata;
import org.hibernate.boot.spi.BootstrapContext;
import org.hibernate.engine.spi.SessionFactoryImplementor;
import org.hibernate.integrator.spi.Integrator;
import org.hibernate.persister.entity.EntityPersister;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Once a session factory on a tenancy is built (its mapping metamodel complete): checks, as {@link EntityCheck} says,
 * that every entity is tenant data or reference data. Tenant data: the entity (or a superclass) has a
 * {@code @TenantId} attribute. Reference data: the entity (or a superclass) is annotated {@link ReferenceData}, or
 * every table it maps is a reference table declared by name ({@code shard-tenancy.reference-tables},
 * {@link io.github.shardtenancy.ShardTenancyBuilder#referenceTables(java.util.Collection)}). Any other entity's rows
 * live on the shards with no tenant: Hibernate saves them without one, every tenant of the shard reads them, and a
 * move leaves them behind. Each entity is named with its tables (a subclass only with the tables its superclass was
 * not already named with), and with the columns whose names contain {@code tenant}, the usual sign of a forgotten
 * {@code @TenantId}. Collection tables need no check of their own: their owner is checked.
 *
 * <p>Registered through {@code META-INF/services/org.hibernate.integrator.spi.Integrator}; active only in a session
 * factory whose multi-tenant connection provider is the library's {@link ShardMultiTenantConnectionProvider}. Runs
 * once per session factory, reading the metamodel only (no database). Stateless and thread-safe.
 */
public final class EntityTenancyIntegrator implements Integrator {

	private static final Logger log = LoggerFactory.getLogger(EntityTenancyIntegrator.class);

	/** The property and the builder setting that choose the {@link EntityCheck}. */
	public static final String SETTING = "shard-tenancy.entities.check";

	@Override
	public void integrate(Metadata metadata, BootstrapContext bootstrapContext,
			SessionFactoryImplementor sessionFactory) {
		ShardMultiTenantConnectionProvider provider = ShardMultiTenantConnectionProvider.of(sessionFactory);
		if (provider == null) {
			return;
		}
		EntityTenancy tenancy = provider.entityTenancy();
		if (tenancy.check() == EntityCheck.OFF) {
			return;
		}
		sessionFactory.addObserver(new SessionFactoryObserver() {

			@Override
			public void sessionFactoryCreated(SessionFactory factory) {
				check((SessionFactoryImplementor) factory, tenancy);
			}

		});
	}

	/**
	 * @param factory the built session factory
	 * @param tenancy the check's setting and the declared reference tables
	 * @throws ShardTenancyConfigurationException with {@link EntityCheck#FAIL}, if an entity is neither tenant nor
	 * reference data
	 */
	static void check(SessionFactoryImplementor factory, EntityTenancy tenancy) {
		if (tenancy.check() == EntityCheck.OFF) {
			return;
		}
		Set<String> reference = new HashSet<>();
		for (String table : tenancy.declaredReferenceTables()) {
			reference.add(normalized(table));
		}
		List<String> untenanted = new ArrayList<>();
		Set<String> named = new HashSet<>();
		factory.getMappingMetamodel().forEachEntityDescriptor((persister) -> {
			Class<?> type = persister.getMappedClass();
			if (persister.getTenantIdMapping() != null || isReferenceData(type)) {
				return;
			}
			Set<String> tables = new LinkedHashSet<>();
			for (String table : persister.getTableNames()) {
				String name = normalized(table);
				if (!name.startsWith("(") && !isReference(reference, name) && !named.contains(name)) {
					tables.add(table);
				}
			}
			if (tables.isEmpty()) {
				return;
			}
			tables.forEach((table) -> named.add(normalized(table)));
			untenanted.add(describe(persister, tables));
		});
		if (untenanted.isEmpty()) {
			return;
		}
		boolean one = untenanted.size() == 1;
		String message = (one ? "Entity " : "Entities ") + String.join(", ", untenanted) + (one ? " has" : " have")
				+ " no @TenantId attribute and " + (one ? "is" : "are") + " not reference data: " + (one ? "its" : "their")
				+ " rows would be saved on the shards with no tenant, read by every tenant of the shard, and left behind "
				+ "when a tenant moves. If a table holds tenant rows, annotate the attribute of its tenant column "
				+ "(such as tenant_id) @org.hibernate.annotations.TenantId; if it holds lookup data shared by all "
				+ "tenants, annotate the entity @io.github.shardtenancy.ReferenceData or list the table in "
				+ "shard-tenancy.reference-tables (builder: referenceTables(...)). " + SETTING + " is "
				+ tenancy.check().name().toLowerCase(Locale.ROOT)
				+ ((tenancy.check() == EntityCheck.FAIL)
						? "; to start anyway while migrating, set " + SETTING
								+ "=warn (builder: entityCheck(EntityCheck.WARN)), or off"
						: "; set " + SETTING + "=fail (builder: entityCheck(EntityCheck.FAIL)) to refuse to start, "
								+ "or off for a table without tenants on purpose");
		if (tenancy.check() == EntityCheck.FAIL) {
			throw new ShardTenancyConfigurationException(SETTING, message);
		}
		log.warn(message);
	}

	private static String describe(EntityPersister persister, Set<String> tables) {
		List<String> tenantLike = new ArrayList<>();
		persister.forEachSelectable((index, selectable) -> {
			String column = selectable.getSelectionExpression();
			if (tables.contains(selectable.getContainingTableExpression())
					&& column.toLowerCase(Locale.ROOT).contains("tenant") && !tenantLike.contains(column)) {
				tenantLike.add(column);
			}
		});
		String text = persister.getEntityName() + " (" + (tables.size() == 1 ? "table " : "tables ")
				+ String.join(", ", tables);
		if (!tenantLike.isEmpty()) {
			text += "; column " + String.join(", ", tenantLike) + " is mapped without @TenantId";
		}
		return text + ")";
	}

	/**
	 * @param reference the declared reference tables, normalized
	 * @param table an entity's table, normalized
	 * @return whether it is one of them: the same name, or the same table name where one of the two names has no
	 * schema
	 */
	private static boolean isReference(Set<String> reference, String table) {
		if (reference.contains(table)) {
			return true;
		}
		for (String declared : reference) {
			boolean declaredQualified = declared.indexOf('.') >= 0;
			boolean tableQualified = table.indexOf('.') >= 0;
			if (declaredQualified != tableQualified && unqualified(declared).equals(unqualified(table))) {
				return true;
			}
		}
		return false;
	}

	private static String unqualified(String table) {
		return table.substring(table.lastIndexOf('.') + 1);
	}

	private static String normalized(String table) {
		return table.trim().replace("\"", "").replace("`", "").toLowerCase(Locale.ROOT);
	}

	private static boolean isReferenceData(@Nullable Class<?> type) {
		for (Class<?> c = type; c != null && c != Object.class; c = c.getSuperclass()) {
			if (c.isAnnotationPresent(ReferenceData.class)) {
				return true;
			}
		}
		return false;
	}

}
