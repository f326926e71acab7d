package io.github.shardtenancy;

/**
 * What the {@link Rebalancer} balances and the hot-tenant report ranks tenants by.
 */
public enum LoadMeasure {

	/** Tenants owned (DELETED ones excluded): every tenant weighs 1. Needs no measurement. */
	TENANTS,

	/** Rows stored in the tenant tables, counted on the shards ({@code COUNT(*)} grouped by tenant column). */
	ROWS,

	/**
	 * Bytes stored in the tenant tables, as the shard's database estimates them (see
	 * {@link io.github.shardtenancy.spi.FenceDialect#tenantStorage}); a database that gives no estimate (H2) counts
	 * rows instead.
	 */
	BYTES,

	/** Transactions of the tenant seen by this instance in the load window ({@link TenantLoads#traffic()}). */
	TRANSACTIONS;

	/**
	 * @param load a tenant's figures
	 * @return its value of this measure
	 */
	public long of(TenantLoad load) {
		return switch (this) {
			case TENANTS -> 1;
			case ROWS -> load.rowsStored();
			case BYTES -> load.bytesStored() >= 0 ? load.bytesStored() : load.rowsStored();
			case TRANSACTIONS -> load.transactions();
		};
	}

}
