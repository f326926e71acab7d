package io.github.shardtenancy;

import java.lang.reflect.Field;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

import org.hibernate.SessionFactory;
import org.hibernate.annotations.TenantId;
import org.hibernate.engine.spi.SessionFactoryImplementor;
import org.hibernate.metamodel.mapping.AttributeMapping;
import org.hibernate.metamodel.mapping.SelectableMapping;
import org.hibernate.persister.entity.EntityPersister;

/**
 * Discovers the tables a {@link TenantMover} must move from a Hibernate session factory's metamodel: the table of
 * every entity with a {@link TenantId} attribute (with that attribute's column), and every collection table (join
 * table or element collection) owned by such an entity, which is expected to carry the owner's tenant column under
 * the same name. A collection table without it makes the move refuse to start, naming the table.
 *
 * <p>Entities without a {@code @TenantId} are not tenant data and are left out. Stateless; thread-safe.
 */
public final class HibernateTenantTables {

	private HibernateTenantTables() {
	}

	/**
	 * @param sessionFactory a built session factory, never {@code null}
	 * @return the tenant tables, in no particular order (the mover sorts them by foreign key); possibly empty
	 * @throws ShardTenancyConfigurationException if a tenant table's name is not a plain SQL identifier
	 */
	public static List<TenantTable> discover(SessionFactory sessionFactory) {
		Objects.requireNonNull(sessionFactory, "sessionFactory");
		SessionFactoryImplementor factory = sessionFactory.unwrap(SessionFactoryImplementor.class);
		Map<String, TenantTable> tables = new LinkedHashMap<>();
		Map<String, String> tenantColumnByEntity = new LinkedHashMap<>();
		factory.getMappingMetamodel().forEachEntityDescriptor(persister -> {
			String attribute = tenantAttribute(persister.getMappedClass());
			if (attribute == null) {
				return;
			}
			AttributeMapping mapping = persister.findAttributeMapping(attribute);
			if (mapping instanceof SelectableMapping selectable) {
				add(tables, selectable.getContainingTableExpression(), selectable.getSelectionExpression());
				tenantColumnByEntity.put(persister.getEntityName(), selectable.getSelectionExpression());
			}
		});
		factory.getMappingMetamodel().forEachCollectionDescriptor(collection -> {
			EntityPersister owner = collection.getOwnerEntityPersister();
			String column = tenantColumnByEntity.get(owner.getEntityName());
			if (column != null && !collection.isOneToMany()) {
				add(tables, collection.getTableName(), column);
			}
		});
		return new ArrayList<>(tables.values());
	}

	/**
	 * Discovers the reference tables: the table of every entity annotated {@link ReferenceData} (and of the
	 * collection tables such an entity owns).
	 * @param sessionFactory a built session factory, never {@code null}
	 * @return the table names, lower case, sorted; possibly empty
	 * @throws ShardTenancyConfigurationException if a {@link ReferenceData} entity also has a {@link TenantId}
	 */
	public static List<String> referenceTables(SessionFactory sessionFactory) {
		Objects.requireNonNull(sessionFactory, "sessionFactory");
		SessionFactoryImplementor factory = sessionFactory.unwrap(SessionFactoryImplementor.class);
		java.util.Set<String> tables = new java.util.TreeSet<>();
		java.util.Set<String> entities = new java.util.HashSet<>();
		factory.getMappingMetamodel().forEachEntityDescriptor(persister -> {
			Class<?> type = persister.getMappedClass();
			if (type == null || !type.isAnnotationPresent(ReferenceData.class)) {
				return;
			}
			if (tenantAttribute(type) != null) {
				throw new ShardTenancyConfigurationException("shard-tenancy.reference-tables", "Entity "
						+ type.getName() + " is annotated @ReferenceData and has a @TenantId attribute; reference data "
						+ "belongs to no tenant: remove one of the two");
			}
			entities.add(persister.getEntityName());
			for (String table : persister.getTableNames()) {
				tables.add(table.toLowerCase(java.util.Locale.ROOT));
			}
		});
		factory.getMappingMetamodel().forEachCollectionDescriptor(collection -> {
			if (entities.contains(collection.getOwnerEntityPersister().getEntityName()) && !collection.isOneToMany()) {
				tables.add(collection.getTableName().toLowerCase(java.util.Locale.ROOT));
			}
		});
		return List.copyOf(tables);
	}

	private static void add(Map<String, TenantTable> tables, String table, String column) {
		try {
			tables.putIfAbsent(table.toLowerCase(java.util.Locale.ROOT), new TenantTable(table, column));
		}
		catch (IllegalArgumentException ex) {
			throw new ShardTenancyConfigurationException("shard-tenancy.move.tables", "Table " + table
					+ " (tenant column " + column + ") cannot be moved: " + ex.getMessage());
		}
	}

	private static String tenantAttribute(Class<?> type) {
		for (Class<?> c = type; c != null && c != Object.class; c = c.getSuperclass()) {
			for (Field field : c.getDeclaredFields()) {
				if (field.isAnnotationPresent(TenantId.class)) {
					return field.getName();
				}
			}
		}
		return null;
	}

}
