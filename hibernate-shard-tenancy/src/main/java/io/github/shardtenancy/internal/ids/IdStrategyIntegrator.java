package io.github.shardtenancy.internal.ids;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import io.github.shardtenancy.IdCheck;
import io.github.shardtenancy.ShardTenancyConfigurationException;
import org.hibernate.SessionFactory;
import org.hibernate.SessionFactoryObserver;
import org.hibernate.boot.Metadata;
import org.hibernate.boot.spi.BootstrapContext;
import org.hibernate.engine.spi.SessionFactoryImplementor;
import org.hibernate.generator.Generator;
import org.hibernate.id.Assigned;
import org.hibernate.id.CompositeNestedGeneratedValueGenerator;
import org.hibernate.id.ForeignGenerator;
import org.hibernate.id.GUIDGenerator;
import org.hibernate.id.IdentityGenerator;
import org.hibernate.id.IncrementGenerator;
import org.hibernate.id.NativeGenerator;
import org.hibernate.id.UUIDGenerator;
import org.hibernate.id.UUIDHexGenerator;
import org.hibernate.id.enhanced.SequenceStyleGenerator;
import org.hibernate.id.enhanced.TableGenerator;
import org.hibernate.id.uuid.UuidGenerator;
import org.hibernate.integrator.spi.Integrator;
import org.hibernate.persister.entity.EntityPersister;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Once a session factory on a tenancy is built (its mapping metamodel complete): checks the id strategy of every
 * tenant entity (one with a {@code @TenantId} attribute) as {@link IdCheck} says, and, if an entity uses
 * {@link io.github.shardtenancy.ShardSafeId}, leases the generator id, so that a directory that cannot be reached, or
 * no free generator id, fails the start rather than the first insert; and raises the counters of the tables of
 * {@code Integer} ids above the largest id already in them on every shard ({@link ShardIds#raiseFloors(Map)}), so
 * that the first insert does not read every shard.
 *
 * <p>Refused: {@code IDENTITY} and any id the database generates on insert, sequences ({@code SEQUENCE}, and
 * {@code AUTO}, which maps to one for numbers), {@code TABLE}, {@code increment} and {@code native}: each counts per
 * shard, so a moved tenant's ids collide with the target shard's. Accepted: assigned ids, UUIDs, ids derived from
 * another entity ({@code @MapsId}) and {@link io.github.shardtenancy.ShardSafeId}. Other generators (the
 * application's own) cannot be judged and are accepted, with an info log.
 *
 * <p>Registered through {@code META-INF/services/org.hibernate.integrator.spi.Integrator}; active only in a session
 * factory whose multi-tenant connection provider is the library's, built by a tenancy. Stateless and thread-safe.
 */
public final class IdStrategyIntegrator implements Integrator {

	private static final Logger log = LoggerFactory.getLogger(IdStrategyIntegrator.class);

	/** The property and the builder setting that choose the {@link IdCheck}. */
	public static final String SETTING = "shard-tenancy.ids.check";

	@Override
	public void integrate(Metadata metadata, BootstrapContext bootstrapContext,
			SessionFactoryImplementor sessionFactory) {
		ShardIds ids = ShardSafeIdGenerator.idsOf(sessionFactory);
		if (ids == null) {
			return;
		}
		sessionFactory.addObserver(new SessionFactoryObserver() {

			@Override
			public void sessionFactoryCreated(SessionFactory factory) {
				check((SessionFactoryImplementor) factory, ids);
			}

		});
	}

	static void check(SessionFactoryImplementor factory, ShardIds ids) {
		List<String> colliding = new ArrayList<>();
		Map<String, String> integerTables = new LinkedHashMap<>();
		boolean[] shardSafe = new boolean[1];
		factory.getMappingMetamodel().forEachEntityDescriptor((persister) -> {
			if (persister.getRootEntityDescriptor() != persister) {
				return; // a subclass shares its root's id
			}
			Generator generator = persister.getGenerator();
			if (generator instanceof ShardSafeIdGenerator shardSafeId) {
				shardSafe[0] = true;
				String table = shardSafeId.table();
				String column = shardSafeId.column();
				if (table != null && column != null) {
					integerTables.put(table, column);
				}
				return;
			}
			if (persister.getTenantIdMapping() == null) {
				return;
			}
			String strategy = collidingStrategy(generator);
			if (strategy != null) {
				colliding.add(persister.getEntityName() + " (" + strategy + ")");
			}
			else if (!accepted(generator)) {
				log.info("Tenant entity {} generates its ids with {}; make sure they are unique across shards, "
						+ "or moving a tenant can collide with the rows already on its target shard",
						persister.getEntityName(), generator.getClass().getName());
			}
		});
		if (!colliding.isEmpty() && ids.check() != IdCheck.OFF) {
			String message = "Tenant " + (colliding.size() == 1 ? "entity " : "entities ")
					+ String.join(", ", colliding) + (colliding.size() == 1 ? " generates its" : " generate their")
					+ " ids per shard: a tenant moved to another shard brings ids the rows already there may use, and the "
					+ "move fails on the primary key. Annotate the id with @io.github.shardtenancy.ShardSafeId (Long or "
					+ "Integer ids unique across shards; existing rows keep theirs), or use UUID or assigned ids. To start anyway "
					+ "while migrating, set " + SETTING + "=warn (builder: idCheck(IdCheck.WARN))";
			if (ids.check() == IdCheck.FAIL) {
				throw new ShardTenancyConfigurationException(SETTING, message);
			}
			log.warn(message);
		}
		if (shardSafe[0]) {
			ids.start();
		}
		if (!integerTables.isEmpty()) {
			ids.raiseFloors(integerTables);
		}
	}

	/** @return the name of a strategy that counts per shard, or {@code null} */
	private static @Nullable String collidingStrategy(@Nullable Generator generator) {
		if (generator == null) {
			return null;
		}
		if (generator instanceof NativeGenerator) {
			return "native";
		}
		if (generator instanceof IdentityGenerator) {
			return "IDENTITY";
		}
		if (generator instanceof SequenceStyleGenerator) {
			return "SEQUENCE";
		}
		if (generator instanceof TableGenerator) {
			return "TABLE";
		}
		if (generator instanceof IncrementGenerator) {
			return "increment";
		}
		if (generator.generatedOnExecution()) {
			return "generated by the database on insert";
		}
		return null;
	}

	private static boolean accepted(@Nullable Generator generator) {
		return generator == null || generator instanceof Assigned || generator instanceof UuidGenerator
				|| generator instanceof UUIDGenerator || generator instanceof UUIDHexGenerator
				|| generator instanceof GUIDGenerator || generator instanceof ForeignGenerator
				|| generator instanceof CompositeNestedGeneratedValueGenerator;
	}

}
