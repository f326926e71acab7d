package io.github.shardtenancy.sample.seed;

import java.util.List;
import java.util.concurrent.atomic.LongAdder;

import io.github.shardtenancy.ShardTopology;
import io.github.shardtenancy.TenantAdmin;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.ApplicationArguments;
import org.springframework.boot.ApplicationRunner;
import org.springframework.core.annotation.Order;
import org.springframework.stereotype.Component;

/**
 * Creates the tenants of a fresh installation: when the directory has no entries yet, creates
 * {@code sample.seed.tenants} tenants (default 20) named {@code tenant-01}, {@code tenant-02}, ..., spread round robin
 * over the configured shards with {@link TenantAdmin#create(String, String)}; each one's first customer is seeded by
 * {@link WelcomeCustomerSeeder} as part of the create. Does nothing when the directory already has entries, so a
 * restart against persistent databases keeps their data.
 */
@Component
@Order(0)
public class InitialTenants implements ApplicationRunner {

	private static final Logger log = LoggerFactory.getLogger(InitialTenants.class);

	private final TenantAdmin admin;

	private final ShardTopology topology;

	private final int tenants;

	/**
	 * @param admin creates tenants, and tells whether seeding is needed
	 * @param topology the shards to spread over
	 * @param tenants how many tenants to create, at least 0
	 */
	public InitialTenants(TenantAdmin admin, ShardTopology topology, @Value("${sample.seed.tenants:20}") int tenants) {
		this.admin = admin;
		this.topology = topology;
		this.tenants = tenants;
	}

	@Override
	public void run(ApplicationArguments args) {
		// Not the directory version: registering the configured shards at start-up already bumps it.
		LongAdder entries = new LongAdder();
		long version = this.admin.snapshot(entry -> entries.increment());
		if (entries.sum() > 0) {
			log.info("Directory already has {} entries (version {}): not seeding", entries.sum(), version);
			return;
		}
		List<String> shards = this.topology.shardIds().stream().sorted().toList();
		for (int i = 1; i <= this.tenants; i++) {
			String tenant = String.format("tenant-%02d", i);
			this.admin.create(tenant, shards.get((i - 1) % shards.size()));
		}
		log.info("Created {} tenants over shards {}", this.tenants, shards);
	}

}
