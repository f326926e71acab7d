package io.github.shardtenancy.boot;

/** Which tool migrates. Bound from {@code shard-tenancy.migrations.*}, see {@link ShardTenancyProperties}. */
public class MigrationsProperties {

	/**
	 * Migration tool of the directory and of every shard: {@code liquibase} (the changelogs and
	 * {@code liquibase.shard-changelogs}), {@code flyway} (the library's Flyway migrations and
	 * {@code flyway.shard-locations}; needs hibernate-shard-tenancy-flyway) or {@code auto}: Flyway when
	 * hibernate-shard-tenancy-flyway and Flyway are on the class path and Liquibase is not, else Liquibase. A database
	 * stays with the tool that first installed the library's schema: the other tool refuses it. Default
	 * {@code auto}.
	 */
	private Tool tool = Tool.AUTO;

	/**
	 * Login user that migrates every shard and installs its fence, the owner of the shards' schema (on PostgreSQL:
	 * the role that creates the tables). When set, the shards' own users (shard-tenancy.shards.<id>.username) serve
	 * the application only and are granted at start-up what they need on the tables (SELECT, INSERT, UPDATE and DELETE
	 * on every table, USAGE and SELECT on every sequence, nothing on the fence's secret), so that they own nothing. The
	 * directory is migrated with its own user. When not set, each shard is migrated with its own user.
	 */
	private String username;

	/** Login password of the user that migrates every shard. */
	private String password;

	public Tool getTool() {
		return this.tool;
	}

	public void setTool(Tool tool) {
		this.tool = tool;
	}

	public String getUsername() {
		return this.username;
	}

	public void setUsername(String username) {
		this.username = username;
	}

	public String getPassword() {
		return this.password;
	}

	public void setPassword(String password) {
		this.password = password;
	}

	/** Migration tools. */
	public enum Tool {

		/** Flyway when hibernate-shard-tenancy-flyway and Flyway are on the class path and Liquibase is not. */
		AUTO,

		/** The library's Liquibase changelogs. */
		LIQUIBASE,

		/** The library's Flyway migrations (hibernate-shard-tenancy-flyway). */
		FLYWAY

	}

}
