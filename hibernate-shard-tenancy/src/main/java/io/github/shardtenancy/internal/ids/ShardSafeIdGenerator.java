package io.github.shardtenancy.internal.ids;

import java.lang.reflect.Field;
import java.lang.reflect.Member;
import java.lang.reflect.Method;
import java.util.EnumSet;
import java.util.List;

import io.github.shardtenancy.ShardSafeId;
import io.github.shardtenancy.ShardTenancyConfigurationException;
import org.hibernate.engine.jdbc.connections.spi.MultiTenantConnectionProvider;
import org.hibernate.engine.spi.SessionFactoryImplementor;
import org.hibernate.engine.spi.SharedSessionContractImplementor;
import org.hibernate.generator.BeforeExecutionGenerator;
import org.hibernate.generator.EventType;
import org.hibernate.generator.EventTypeSets;
import org.hibernate.generator.GeneratorCreationContext;
import org.hibernate.mapping.Column;
import org.jspecify.annotations.Nullable;

/**
 * Hibernate's generator behind {@link ShardSafeId}: asks the tenancy's {@link ShardIds} for each new entity's id,
 * before the insert ({@code Integer} ids from the counter of the root entity's table, raised above the largest value
 * of the mapped id column already on the shards). Created by Hibernate once per annotated id; finds the
 * {@link ShardIds} through the session factory's multi-tenant connection provider, which must be the library's (an
 * {@link IdSource}). Thread-safe.
 */
public final class ShardSafeIdGenerator implements BeforeExecutionGenerator {

	private static final long serialVersionUID = 1L;

	private final String entity;

	private final boolean integer;

	/** The counter of Integer ids: the root entity's table, where the id lives; {@code null} for Long ids. */
	private final @Nullable String table;

	/** The id column of {@link #table}, as mapped; {@code null} for Long ids, or when not one column. */
	private final @Nullable String column;

	private transient volatile @Nullable ShardIds ids;

	/**
	 * Called by Hibernate.
	 * @param annotation the annotation
	 * @param member the id field or getter
	 * @param context the mapping
	 * @throws ShardTenancyConfigurationException if the id is not a {@code Long}, {@code long}, {@code Integer} or
	 * {@code int}
	 */
	public ShardSafeIdGenerator(ShardSafeId annotation, Member member, GeneratorCreationContext context) {
		this.entity = context.getPersistentClass() != null ? context.getPersistentClass().getEntityName()
				: member.getDeclaringClass().getName();
		Class<?> type = (member instanceof Field field) ? field.getType()
				: (member instanceof Method method) ? method.getReturnType() : Long.class;
		this.integer = (type == Integer.class || type == int.class);
		if (type != Long.class && type != long.class && !this.integer) {
			throw new ShardTenancyConfigurationException("@ShardSafeId", "@ShardSafeId on " + this.entity + "."
					+ member.getName() + " needs a Long, long, Integer or int id, not " + type.getName()
					+ ": use Long, or a UUID id generated with @GeneratedValue");
		}
		this.table = !this.integer ? null
				: (context.getPersistentClass() != null) ? context.getPersistentClass().getRootClass().getTable().getName()
				: this.entity;
		this.column = !this.integer || context.getPersistentClass() == null ? null
				: idColumn(context.getPersistentClass().getRootClass().getIdentifier().getColumns());
	}

	private static @Nullable String idColumn(List<Column> columns) {
		return columns.size() == 1 ? columns.get(0).getName() : null;
	}

	/** @return the table of the counter of this generator's Integer ids, or {@code null} for Long ids */
	@Nullable String table() {
		return this.table;
	}

	/** @return the id column of {@link #table()} as mapped, or {@code null} (Long ids, or not one column) */
	@Nullable String column() {
		return this.column;
	}

	@Override
	public Object generate(SharedSessionContractImplementor session, Object owner, @Nullable Object currentValue,
			EventType eventType) {
		ShardIds source = this.ids;
		if (source == null) {
			source = idsOf(session.getFactory());
			if (source == null) {
				throw new ShardTenancyConfigurationException("@ShardSafeId", "@ShardSafeId on " + this.entity
						+ " needs a session factory built on a ShardTenancy (its hibernateSettings(), or the Spring Boot "
						+ "starter), whose directory leases the generator ids");
			}
			source.start();
			this.ids = source;
		}
		if (this.table == null) {
			return source.next();
		}
		return (this.column != null) ? source.nextInt(this.table, this.column) : source.nextInt(this.table);
	}

	@Override
	public EnumSet<EventType> getEventTypes() {
		return EventTypeSets.INSERT_ONLY;
	}

	/**
	 * @param factory a session factory
	 * @return the ids of the tenancy whose connection provider the factory uses, or {@code null} if it uses another
	 * provider, or one without ids
	 */
	static @Nullable ShardIds idsOf(SessionFactoryImplementor factory) {
		MultiTenantConnectionProvider<?> provider = factory.getServiceRegistry()
			.getService(MultiTenantConnectionProvider.class);
		if (provider == null || !provider.isUnwrappableAs(IdSource.class)) {
			return null;
		}
		return provider.unwrap(IdSource.class).ids();
	}

}
