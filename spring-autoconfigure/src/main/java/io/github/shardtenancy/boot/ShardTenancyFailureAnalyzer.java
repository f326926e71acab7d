package io.github.shardtenancy.boot;

import io.github.shardtenancy.ShardTenancyConfigurationException;
import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/**
 * Explains a start-up failure caused by {@link ShardTenancyConfigurationException} (no shards, no directory URL, a
 * malformed shard id or tenant table, an unreachable shard, a numeric setting out of range, an unsupported Liquibase
 * version, a {@code spring.datasource.url} or {@code spring.sql.init.mode=always} the routing DataSource would
 * defeat, a tenant read from a source the client chooses with Spring Security and no access policy): what is wrong, and which property to fix. Registered in {@code META-INF/spring.factories}. Stateless
 * and thread-safe.
 */
class ShardTenancyFailureAnalyzer extends AbstractFailureAnalyzer<ShardTenancyConfigurationException> {

	@Override
	protected FailureAnalysis analyze(Throwable rootFailure, ShardTenancyConfigurationException cause) {
		String description = "Shard tenancy is not configured correctly (" + cause.setting() + "):\n\n    "
				+ cause.getMessage();
		if ("shard-tenancy.fence.require-row-level-security".equals(cause.setting())) {
			return new FailureAnalysis(description, "Connect the shard as a role without SUPERUSER and BYPASSRLS "
					+ "(for example the role that owns the application's tables), or set "
					+ "shard-tenancy.fence.require-row-level-security=false to start with a warning instead.", cause);
		}
		if ("shard-tenancy.security.strict".equals(cause.setting())) {
			return new FailureAnalysis(description, "Connect the shard as a role without the privileges named above "
					+ "(docs/security.md and docs/postgresql.md, Role requirements), or set "
					+ "shard-tenancy.security.strict=false to start with a warning instead.", cause);
		}
		if ("shard-tenancy.fence.row-level-security".equals(cause.setting())) {
			return new FailureAnalysis(description, "Connect the shard as the role that owns the tenant tables, "
					+ "without SUPERUSER and BYPASSRLS (docs/postgresql.md, Role requirements), or start once as the "
					+ "owner, or set shard-tenancy.fence.row-level-security=false to start without row-level "
					+ "security (plain JDBC and native SQL then read every tenant's rows).", cause);
		}
		if (LiquibaseVersionCheck.SETTING.equals(cause.setting())) {
			return new FailureAnalysis(description, "Set the build property " + LiquibaseVersionCheck.SETTING + " to "
					+ LiquibaseVersionCheck.RECOMMENDED + " so that dependency management selects the supported "
					+ "Liquibase (Spring Boot's dependency management picks Liquibase 5 otherwise), or set "
					+ "shard-tenancy.liquibase.enabled=false and migrate the directory and the shards yourself.", cause);
		}
		if (IgnoredSpringSettingsCheck.DATASOURCE_URL.equals(cause.setting())
				|| IgnoredSpringSettingsCheck.SQL_INIT_MODE.equals(cause.setting())) {
			return new FailureAnalysis(description, "Remove " + cause.setting() + " from the configuration: the "
					+ "starter replaces Spring Boot's DataSource and SQL initialization (docs/migration.md shows where "
					+ "each setting goes).", cause);
		}
		if (IgnoredSpringSettingsCheck.DDL_AUTO.equals(cause.setting())
				|| IgnoredSpringSettingsCheck.HBM2DDL_AUTO.equals(cause.setting())) {
			return new FailureAnalysis(description, "Remove " + cause.setting() + " (or set it to none or validate): "
					+ "a shard changelog (shard-tenancy.liquibase.shard-changelogs) creates the tables on every shard, "
					+ "and on each shard registered later (docs/migration.md).", cause);
		}
		if (ShardTenancyWebConfiguration.ACCESS_POLICY.equals(cause.setting())) {
			return new FailureAnalysis(description, "Say who may act for which tenant: set "
					+ "shard-tenancy.web.access.policy=claim (the JWT claim shard-tenancy.web.access.claim, default "
					+ "tenants, or TENANT_<id> authorities list the user's tenants), or define a TenantGrants bean "
					+ "(policy lookup) or a TenantAccessPolicy bean; or set shard-tenancy.web.access.policy=none to "
					+ "switch the check off (docs/security.md).", cause);
		}
		if ("shard-tenancy.ids.check".equals(cause.setting())) {
			return new FailureAnalysis(description, "Annotate the id of each entity named with "
					+ "@io.github.shardtenancy.ShardSafeId (a Long id unique across shards; existing rows keep their "
					+ "ids), or use UUID or assigned ids. While migrating, set shard-tenancy.ids.check=warn to start "
					+ "with a warning instead.", cause);
		}
		if (cause.setting().startsWith("shard-tenancy.shards.") && cause.setting().endsWith(".url")
				&& cause.getMessage().contains("cannot be reached at start-up")) {
			return new FailureAnalysis(description, "Check " + cause.setting() + ", the shard's user and password, "
					+ "and that its database is up; or set shard-tenancy.unreachable-shard-policy=start-without to "
					+ "start without the shard: its tenants' work then fails with ShardUnavailableException, and the "
					+ "shard is migrated and served once it answers (docs/operations.md).", cause);
		}
		String action = "Fix the '" + cause.setting() + "' configuration. A minimal setup needs "
				+ "shard-tenancy.directory.url and at least one shard-tenancy.shards.<shard-id>.url (shard ids: 1 to 64 "
				+ "letters, digits, '.', '_' or '-', starting with a letter or digit).";
		return new FailureAnalysis(description, action, cause);
	}

}
