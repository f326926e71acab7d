package io.github.shardtenancy.boot;

import java.util.ArrayList;
import java.util.List;

/**
 * The SQL scripts that load a new tenant's initial data on its shard when {@code TenantAdmin.create} creates it. Bound
 * from {@code shard-tenancy.seed.*}, see {@link ShardTenancyProperties}.
 */
public class SeedProperties {

	/**
	 * Locations of the SQL scripts run, in order, in one transaction on a new tenant's shard with the tenant bound,
	 * for example {@code classpath:db/seed/*.sql}; the scripts matched by one pattern run sorted by file name. A
	 * location prefixed with {@code optional:} may match nothing. {@code ${tenant}} and {@code ${shard}} in a script
	 * are replaced by the tenant id and the shard id, and {@code ${id:name}} by a shard-safe id, the same for the same
	 * name within one tenant's seed. Default none.
	 */
	private List<String> locations = new ArrayList<>();

	/** Statement separator in the seed scripts. Default {@code ;}. */
	private String separator = ";";

	public List<String> getLocations() {
		return this.locations;
	}

	public void setLocations(List<String> locations) {
		this.locations = locations;
	}

	public String getSeparator() {
		return this.separator;
	}

	public void setSeparator(String separator) {
		this.separator = separator;
	}

}
