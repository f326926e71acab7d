package io.github.shardtenancy.benchmarks;

import java.util.HashMap;
import java.util.List;
import java.util.Map;

import io.github.shardtenancy.benchmarks.app.library.LibraryApplication;
import io.github.shardtenancy.benchmarks.app.plain.PlainApplication;
import io.github.shardtenancy.liquibase.ShardTenancyMigrations;
import org.springframework.boot.Banner;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.jdbc.datasource.DriverManagerDataSource;

/** Starts the two Spring Boot applications the throughput figures compare. Stateless. */
final class BenchApps {

	static final String APP_CHANGELOG = "db/bench/app.xml";

	/**
	 * Whether the library's shards get row-level security: on, as the library's default
	 * ({@code shard-tenancy.fence.row-level-security=true}); {@code --no-row-level-security} switches it off.
	 */
	static volatile boolean rowLevelSecurity = true;

	private BenchApps() {
	}

	/** JDBC coordinates of one database. */
	record Db(String url, String user, String password) {

		static Db h2(String name) {
			return new Db("jdbc:h2:mem:" + name + ";DB_CLOSE_DELAY=-1;LOCK_TIMEOUT=10000", "sa", "");
		}

	}

	/**
	 * Starts the application through the library's auto-configuration.
	 * @param directory the directory database
	 * @param shards shard id to database
	 * @param extra further properties (override the defaults here)
	 * @return the running context
	 */
	static ConfigurableApplicationContext library(Db directory, Map<String, Db> shards, Map<String, Object> extra) {
		Map<String, Object> p = common();
		p.put("shard-tenancy.directory.url", directory.url());
		p.put("shard-tenancy.directory.username", directory.user());
		p.put("shard-tenancy.directory.password", directory.password());
		shards.forEach((id, db) -> {
			p.put("shard-tenancy.shards." + id + ".url", db.url());
			p.put("shard-tenancy.shards." + id + ".username", db.user());
			p.put("shard-tenancy.shards." + id + ".password", db.password());
		});
		p.put("shard-tenancy.liquibase.shard-changelogs", APP_CHANGELOG);
		p.put("shard-tenancy.actor", "benchmarks");
		p.put("shard-tenancy.fence.row-level-security", String.valueOf(rowLevelSecurity));
		p.putAll(extra);
		return new SpringApplicationBuilder(LibraryApplication.class).web(WebApplicationType.NONE)
			.bannerMode(Banner.Mode.OFF)
			.logStartupInfo(false)
			.properties(p)
			.run();
	}

	/**
	 * Migrates the application schema on a plain database and starts the baseline application on it.
	 * @param db the database
	 * @return the running context
	 */
	static ConfigurableApplicationContext plain(Db db) {
		// The same changelog the library runs on its shards (it also creates the unused fence tables; no tenant
		// table gets a fence trigger here).
		ShardTenancyMigrations.migrateShard(new DriverManagerDataSource(db.url(), db.user(), db.password()), "plain",
				List.of(APP_CHANGELOG));
		Map<String, Object> p = common();
		p.put("shard-tenancy.enabled", "false");
		p.put("spring.datasource.url", db.url());
		p.put("spring.datasource.username", db.user());
		p.put("spring.datasource.password", db.password());
		p.put("spring.datasource.hikari.maximum-pool-size", "10");
		return new SpringApplicationBuilder(PlainApplication.class).web(WebApplicationType.NONE)
			.bannerMode(Banner.Mode.OFF)
			.logStartupInfo(false)
			.properties(p)
			.run();
	}

	private static Map<String, Object> common() {
		Map<String, Object> p = new HashMap<>();
		p.put("spring.jpa.open-in-view", "false");
		p.put("spring.jpa.hibernate.ddl-auto", "none");
		p.put("spring.main.web-application-type", "none");
		p.put("logging.level.root", "WARN");
		return p;
	}

}
