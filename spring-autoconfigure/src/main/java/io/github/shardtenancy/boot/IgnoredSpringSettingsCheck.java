package io.github.shardtenancy.boot;

import java.util.Locale;

import io.github.shardtenancy.ShardTenancyConfigurationException;
import org.springframework.core.env.Environment;

/**
 * Refuses Spring Boot settings that the tenant-routing {@code DataSource} would silently defeat, once the
 * auto-configuration provides it (an application {@code DataSource} bean, or {@code shard-tenancy.enabled=false},
 * switches the check off with the routing {@code DataSource}):
 * <ul>
 * <li>{@code spring.datasource.url}: Boot's {@code DataSource} backs off for the routing one, so the URL would
 * connect nothing.</li>
 * <li>{@code spring.sql.init.mode=always}: Boot's SQL initialization would run {@code schema.sql} and
 * {@code data.sql} once, on the routing {@code DataSource}, with no tenant bound.</li>
 * <li>{@code spring.jpa.hibernate.ddl-auto} (or {@code spring.jpa.properties.hibernate.hbm2ddl.auto}) other than
 * {@code none} or {@code validate}: Hibernate would create or change the schema once, through the routing
 * {@code DataSource} with no tenant bound, on whichever shard answers, never on the others.</li>
 * </ul>
 * Stateless.
 */
final class IgnoredSpringSettingsCheck {

	static final String DATASOURCE_URL = "spring.datasource.url";

	static final String SQL_INIT_MODE = "spring.sql.init.mode";

	static final String DDL_AUTO = "spring.jpa.hibernate.ddl-auto";

	static final String HBM2DDL_AUTO = "spring.jpa.properties.hibernate.hbm2ddl.auto";

	private IgnoredSpringSettingsCheck() {
	}

	/**
	 * @param environment the application's environment
	 * @throws ShardTenancyConfigurationException naming the first setting found, its value and the remedy
	 */
	static void check(Environment environment) {
		String url = environment.getProperty(DATASOURCE_URL);
		if (url != null && !url.isBlank()) {
			throw new ShardTenancyConfigurationException(DATASOURCE_URL, DATASOURCE_URL + " is set to '" + url
					+ "', but the application's DataSource is the shard tenancy's tenant-routing one, so that URL "
					+ "would connect nothing: configure the databases as shard-tenancy.directory.url and "
					+ "shard-tenancy.shards.<shard-id>.url and remove " + DATASOURCE_URL
					+ " (to keep a DataSource of your own, define a DataSource bean, or set shard-tenancy.enabled=false)");
		}
		String mode = environment.getProperty(SQL_INIT_MODE);
		if (mode != null && mode.trim().toLowerCase(Locale.ROOT).equals("always")) {
			throw new ShardTenancyConfigurationException(SQL_INIT_MODE, SQL_INIT_MODE + " is set to '" + mode
					+ "', but Spring Boot's SQL initialization would run schema.sql and data.sql once, against the "
					+ "tenant-routing DataSource with no tenant bound: create the tables with a shard changelog "
					+ "(shard-tenancy.liquibase.shard-changelogs), load each tenant's data with "
					+ "shard-tenancy.seed.locations, and remove " + SQL_INIT_MODE + " (or set it to never)");
		}
		for (String setting : new String[] { DDL_AUTO, HBM2DDL_AUTO }) {
			String ddl = environment.getProperty(setting);
			String value = (ddl != null) ? ddl.trim().toLowerCase(Locale.ROOT) : "none";
			if (!value.equals("none") && !value.equals("validate") && !value.isEmpty()) {
				throw new ShardTenancyConfigurationException(setting, setting + " is set to '" + ddl + "', but "
						+ "Hibernate would then create or change the schema once, through the tenant-routing "
						+ "DataSource with no tenant bound, on one shard and never on the others: put the tables in a "
						+ "shard changelog (shard-tenancy.liquibase.shard-changelogs), which runs on every shard and "
						+ "on each shard registered later, and set " + setting + " to none or validate (or remove it)");
			}
		}
	}

}
