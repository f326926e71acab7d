package io.github.shardtenancy.boot;

import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import io.github.shardtenancy.ShardTenancyConfigurationException;
import io.github.shardtenancy.TenantTable;
import io.github.shardtenancy.ShardTopology;
import jakarta.persistence.EntityManagerFactory;
import org.hibernate.annotations.TenantId;
import org.hibernate.engine.spi.SessionFactoryImplementor;
import org.hibernate.metamodel.mapping.AttributeMapping;
import org.hibernate.metamodel.mapping.SelectableMapping;
import org.hibernate.persister.collection.CollectionPersister;
import org.hibernate.persister.entity.EntityPersister;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.ObjectProvider;

/**
 * Works out the tenant tables once: from {@code shard-tenancy.tenant-tables} when it is set, otherwise from the
 * Hibernate metamodel (every entity with an {@code @TenantId} attribute: its table and that attribute's column; and
 * the collection tables of such entities that have the same column, checked on the first shard). Thread-safe; the
 * answer is computed on first use and kept.
 */
class TenantTableResolver {

	private static final Logger log = LoggerFactory.getLogger(TenantTableResolver.class);

	private static final String SETTING = "shard-tenancy.tenant-tables";

	private final List<String> configured;

	private final ObjectProvider<EntityManagerFactory> entityManagerFactory;

	private volatile ShardTopology topology;

	private volatile List<TenantTable> resolved;

	/**
	 * @param configured {@code shard-tenancy.tenant-tables}; parsed now when not empty
	 * @param entityManagerFactory the factory to discover the tables from when none is configured
	 * @throws ShardTenancyConfigurationException if a configured entry is not {@code table:column} of plain SQL
	 * identifiers
	 */
	TenantTableResolver(List<String> configured, ObjectProvider<EntityManagerFactory> entityManagerFactory) {
		this.configured = List.copyOf(configured);
		this.entityManagerFactory = entityManagerFactory;
		if (!this.configured.isEmpty()) {
			this.resolved = parse(this.configured);
		}
	}

	/** @param topology the shards, on the first of which discovered collection tables are checked */
	void topology(ShardTopology topology) {
		this.topology = topology;
	}

	/**
	 * @return the tenant tables, possibly empty
	 * @throws ShardTenancyConfigurationException if a configured entry is not {@code table:column} of plain SQL
	 * identifiers, or a discovered name is not a plain SQL identifier
	 */
	synchronized List<TenantTable> resolve() {
		if (this.resolved == null) {
			this.resolved = this.configured.isEmpty() ? discover() : parse(this.configured);
			log.debug("Tenant tables: {}", this.resolved);
		}
		return this.resolved;
	}

	static List<TenantTable> parse(List<String> entries) {
		List<TenantTable> tables = new ArrayList<>();
		for (String entry : entries) {
			int colon = entry.indexOf(':');
			if (colon <= 0 || colon == entry.length() - 1 || entry.indexOf(':', colon + 1) >= 0) {
				throw new ShardTenancyConfigurationException(SETTING,
						"Invalid tenant table '" + entry + "': expected table:column, e.g. orders:tenant_id");
			}
			tables.add(table(entry.substring(0, colon).trim(), entry.substring(colon + 1).trim()));
		}
		return List.copyOf(tables);
	}

	private static TenantTable table(String table, String column) {
		try {
			return new TenantTable(table, column);
		}
		catch (IllegalArgumentException ex) {
			throw new ShardTenancyConfigurationException(SETTING, "Invalid tenant table '" + table + ":" + column
					+ "': " + ex.getMessage() + "; list the tables explicitly under " + SETTING);
		}
	}

	private List<TenantTable> discover() {
		EntityManagerFactory emf = this.entityManagerFactory.getIfAvailable();
		if (emf == null) {
			log.warn("No {} configured and no JPA EntityManagerFactory to discover them from: moves copy no rows and "
					+ "no fence write check is installed", SETTING);
			return List.of();
		}
		SessionFactoryImplementor sessionFactory = emf.unwrap(SessionFactoryImplementor.class);
		Map<String, TenantTable> tables = new LinkedHashMap<>();
		Map<String, String> columnByEntity = new LinkedHashMap<>();
		sessionFactory.getMappingMetamodel().forEachEntityDescriptor((persister) -> {
			SelectableMapping column = tenantColumn(persister);
			if (column != null) {
				TenantTable table = table(column.getContainingTableExpression(), column.getSelectionExpression());
				tables.putIfAbsent(key(table.table()), table);
				columnByEntity.put(persister.getEntityName(), column.getSelectionExpression());
			}
		});
		sessionFactory.getMappingMetamodel().forEachCollectionDescriptor((collection) -> {
			String column = columnByEntity.get(collection.getOwnerEntityPersister().getEntityName());
			if (column != null && !collection.isOneToMany() && hasColumn(collection, column)) {
				TenantTable table = table(collection.getTableName(), column);
				tables.putIfAbsent(key(table.table()), table);
			}
		});
		return List.copyOf(tables.values());
	}

	private static String key(String table) {
		return table.toLowerCase(Locale.ROOT);
	}

	private static SelectableMapping tenantColumn(EntityPersister persister) {
		String attribute = tenantAttribute(persister.getMappedClass());
		if (attribute == null) {
			return null;
		}
		AttributeMapping mapping = persister.findAttributeMapping(attribute);
		return (mapping instanceof SelectableMapping selectable) ? selectable : null;
	}

	private static String tenantAttribute(Class<?> type) {
		for (Class<?> c = type; c != null && c != Object.class; c = c.getSuperclass()) {
			for (Field field : c.getDeclaredFields()) {
				if (field.isAnnotationPresent(TenantId.class)) {
					return field.getName();
				}
			}
			for (Method method : c.getDeclaredMethods()) {
				if (method.isAnnotationPresent(TenantId.class) && method.getParameterCount() == 0) {
					String name = method.getName();
					String property = name.startsWith("get") ? name.substring(3)
							: name.startsWith("is") ? name.substring(2) : name;
					return property.isEmpty() ? name
							: Character.toLowerCase(property.charAt(0)) + property.substring(1);
				}
			}
		}
		return null;
	}

	private boolean hasColumn(CollectionPersister collection, String column) {
		String table = collection.getTableName();
		ShardTopology shards = this.topology;
		if (shards == null || shards.shardIds().isEmpty()) {
			return false;
		}
		String first = shards.shardIds().stream().sorted().findFirst().orElseThrow();
		try (Connection c = shards.dataSource(first).getConnection()) {
			DatabaseMetaData metaData = c.getMetaData();
			for (String candidate : List.of(table, table.toUpperCase(Locale.ROOT), table.toLowerCase(Locale.ROOT))) {
				try (ResultSet rs = metaData.getColumns(null, null, candidate, null)) {
					while (rs.next()) {
						if (rs.getString("COLUMN_NAME").equalsIgnoreCase(column)) {
							return true;
						}
					}
				}
			}
			return false;
		}
		catch (SQLException ex) {
			log.warn("Cannot check whether collection table {} has the tenant column {}: {}", table, column,
					ex.getMessage());
			return false;
		}
	}

}
