package io.github.shardtenancy.boot;

import java.util.ArrayList;
import java.util.List;

/**
 * Flyway migrations at start-up, when {@code shard-tenancy.migrations.tool} resolves to {@code flyway}. Bound from
 * {@code shard-tenancy.flyway.*}, see {@link ShardTenancyProperties}.
 */
public class FlywayProperties {

	/**
	 * Whether the library's Flyway migrations of the directory and, on every shard, of the fence, followed by the
	 * application's shard migrations, run at start-up, before routing starts. Default {@code true}.
	 */
	private boolean enabled = true;

	/**
	 * Flyway locations of the application's own shard migrations, run on every shard after the fence (outside
	 * {@code classpath:db/migration}, which Boot's own Flyway scans, sub-folders included). Default
	 * {@code classpath:db/shard/migration}.
	 */
	private List<String> shardLocations = new ArrayList<>(List.of("classpath:db/shard/migration"));

	/**
	 * History table of the application's shard migrations in every shard; the library's own are recorded in
	 * {@code shard_tenancy_schema_history}. Default {@code flyway_schema_history}.
	 */
	private String shardTable = "flyway_schema_history";

	public boolean isEnabled() {
		return this.enabled;
	}

	public void setEnabled(boolean enabled) {
		this.enabled = enabled;
	}

	public List<String> getShardLocations() {
		return this.shardLocations;
	}

	public void setShardLocations(List<String> shardLocations) {
		this.shardLocations = shardLocations;
	}

	public String getShardTable() {
		return this.shardTable;
	}

	public void setShardTable(String shardTable) {
		this.shardTable = shardTable;
	}

}
