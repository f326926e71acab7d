package io.github.shardtenancy;

/** The library's configuration cannot work: no shards, no directory, a malformed shard id, and the like. */
public class ShardTenancyConfigurationException extends ShardTenancyException {

	private final String setting;

	/**
	 * @param setting the configuration key at fault, e.g. {@code shard-tenancy.shards}
	 * @param message what is wrong and how to fix it
	 */
	public ShardTenancyConfigurationException(String setting, String message) {
		super(message, null, null, -1, null);
		this.setting = setting;
	}

	/**
	 * @param setting the configuration key at fault, e.g. {@code shard-tenancy.fence.require-row-level-security}
	 * @param message what is wrong and how to fix it
	 * @param shardId the shard the setting cannot work with
	 */
	public ShardTenancyConfigurationException(String setting, String message, String shardId) {
		super(message, null, shardId, -1, null);
		this.setting = setting;
	}

	/** @return the configuration key at fault */
	public String setting() {
		return this.setting;
	}

}
