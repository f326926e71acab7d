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

	public Tool getTool() {
		return this.tool;
	}

	public void setTool(Tool tool) {
		this.tool = tool;
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
