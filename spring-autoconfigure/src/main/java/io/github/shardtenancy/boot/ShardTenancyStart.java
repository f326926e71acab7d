package io.github.shardtenancy.boot;

import java.util.List;
import java.util.Map;

import io.github.shardtenancy.ShardTenancy;
import io.github.shardtenancy.DirectoryEntry;
import io.github.shardtenancy.InvalidTenantIdException;
import io.github.shardtenancy.ShardTenancyConfigurationException;
import io.github.shardtenancy.TenantAdmin;
import io.github.shardtenancy.TenantAlreadyExistsException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.SmartInitializingSingleton;

/**
 * Starts the {@link ShardTenancy} when created (after the migrations: the auto-configuration makes it depend on
 * them), and prepares its shards once all singletons (the {@code EntityManagerFactory} among them, from whose
 * metamodel the tenant tables may be discovered) exist, before the application serves work: the fence's write check
 * (and, on PostgreSQL, its TRUNCATE refusal and, unless switched off, row-level security, checking that each shard's
 * role is subject to it) and, unless {@code shard-tenancy.move.install-capture=false}, the online mover's change
 * capture (on H2, creating a trigger while the table is written can fail the writes). Both are idempotent. Then it
 * creates the tenants of {@code shard-tenancy.initial-tenants} the directory does not have (idempotent, so every
 * instance of an application may do it; a tenant another instance created meanwhile is left alone). A tenant that
 * exists is never seeded here, since a seed that failed may have committed its rows (see
 * {@link io.github.shardtenancy.TenantSeedException#rolledBack()}).
 */
final class ShardTenancyStart implements SmartInitializingSingleton {

	/** The core builder's setting names, as the properties that set them. */
	private static final Map<String, String> PROPERTIES = Map.of("tenantTables", "shard-tenancy.tenant-tables",
			"rowLevelSecurity", "shard-tenancy.fence.row-level-security", "requireRowLevelSecurity",
			"shard-tenancy.fence.require-row-level-security", "strictSecurity", "shard-tenancy.security.strict",
			"referenceRole", "shard-tenancy.security.reference-role", "shardOwners",
			"shard-tenancy.migrations.username");

	private static final Logger log = LoggerFactory.getLogger(ShardTenancyStart.class);

	private final ShardTenancy tenancy;

	private final List<String> initialTenants;

	/**
	 * Starts the tenancy.
	 * @param tenancy the tenancy
	 * @param initialTenants the tenants to create once the shards are prepared, when absent
	 * @throws io.github.shardtenancy.DirectoryUnavailableException if the directory cannot be read
	 */
	ShardTenancyStart(ShardTenancy tenancy, List<String> initialTenants) {
		this.tenancy = tenancy;
		this.initialTenants = List.copyOf(initialTenants);
		tenancy.start();
	}

	/**
	 * @throws ShardTenancyConfigurationException if a check or the capture cannot be installed on a tenant table,
	 * naming the table, the shard and the property ({@code shard-tenancy.tenant-tables}); or, with
	 * {@code shard-tenancy.fence.require-row-level-security}, if a shard's role skips row-level security; or if an id
	 * of {@code shard-tenancy.initial-tenants} is not a valid tenant id
	 * @throws io.github.shardtenancy.TenantSeedException if an initial tenant's seed fails (the tenant exists, and the
	 * next start leaves it alone: seed it with {@code TenantAdmin.seed} once the cause is fixed)
	 * @throws io.github.shardtenancy.DirectoryUnavailableException if the directory cannot be written
	 */
	@Override
	public void afterSingletonsInstantiated() {
		try {
			this.tenancy.prepareShards();
		}
		catch (ShardTenancyConfigurationException ex) {
			throw asProperty(ex);
		}
		createInitialTenants();
	}

	private void createInitialTenants() {
		TenantAdmin admin = this.tenancy.admin();
		for (String tenant : this.initialTenants) {
			try {
				if (admin.find(tenant).isEmpty()) {
					DirectoryEntry entry = admin.create(tenant);
					log.info("Created initial tenant '{}' on shard '{}'", tenant, entry.shardId());
				}
			}
			catch (TenantAlreadyExistsException ex) {
				log.debug("Initial tenant '{}' was created by another instance meanwhile", tenant);
			}
			catch (InvalidTenantIdException ex) {
				throw new ShardTenancyConfigurationException("shard-tenancy.initial-tenants",
						ex.getMessage() + ": correct or remove it in shard-tenancy.initial-tenants");
			}
		}
	}

	/**
	 * @param ex a failure naming a setting of the core's builder
	 * @return the same failure naming the property instead, or {@code ex} if no property sets that setting
	 */
	static ShardTenancyConfigurationException asProperty(ShardTenancyConfigurationException ex) {
		String property = PROPERTIES.get(ex.setting());
		if (property == null) {
			return ex;
		}
		return new ShardTenancyConfigurationException(property, ex.getMessage() + " (" + property + ")",
				ex.shardId());
	}

}
