package io.github.shardtenancy.boot.actuate;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Stream;

import javax.sql.DataSource;

import io.github.shardtenancy.ShardTopology;
import io.github.shardtenancy.UnknownShardException;
import org.springframework.boot.health.contributor.CompositeHealthContributor;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthContributor;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.jdbc.health.DataSourceHealthIndicator;

/**
 * The {@code db} health of a sharded application: one Boot {@link DataSourceHealthIndicator} for the directory
 * database ({@code directory}) and one per shard of the topology (named by shard id), each checking a pooled
 * connection of its own database. It replaces Boot's {@code db} contributor, which would ask the tenant-routing
 * {@code DataSource} for a connection with no tenant bound and so report DOWN for ever. The shards are read from the
 * topology each time health is asked, so shards added at runtime are included and retired ones dropped; a configured
 * shard not reached since start-up is DOWN. Thread-safe.
 */
public final class ShardDatabasesHealthContributor implements CompositeHealthContributor {

	/** Name of the directory database's entry. */
	public static final String DIRECTORY = "directory";

	/** A configured shard not reached since start-up (shard-tenancy.unreachable-shard-policy=start-without). */
	private static final HealthIndicator PENDING = () -> Health.down()
		.withDetail("error", "not reached since start-up; tried again in the background, its tenants are served once "
				+ "it answers (shard-tenancy.unreachable-shard-policy=start-without)")
		.build();

	private final DataSource directory;

	private final ShardTopology topology;

	private final Map<DataSource, DataSourceHealthIndicator> indicators = new ConcurrentHashMap<>();

	/**
	 * @param directory the directory database's pool (checked as {@code directory})
	 * @param topology the shards (each checked under its shard id)
	 */
	public ShardDatabasesHealthContributor(DataSource directory, ShardTopology topology) {
		this.directory = directory;
		this.topology = topology;
	}

	@Override
	public HealthContributor getContributor(String name) {
		if (DIRECTORY.equals(name)) {
			return indicator(this.directory);
		}
		if (this.topology.pendingShardIds().contains(name)) {
			return PENDING;
		}
		DataSource shard = shardDataSource(name);
		return (shard != null) ? indicator(shard) : null;
	}

	@Override
	public Stream<Entry> stream() {
		Stream<Entry> shards = this.topology.shardIds()
			.stream()
			.sorted()
			.flatMap((id) -> {
				DataSource shard = shardDataSource(id);
				return (shard != null) ? Stream.of(new Entry(id, indicator(shard))) : Stream.empty();
			});
		Stream<Entry> pending = this.topology.pendingShardIds().stream().map((id) -> new Entry(id, PENDING));
		return Stream.concat(Stream.of(new Entry(DIRECTORY, indicator(this.directory))),
				Stream.concat(shards, pending));
	}

	/** @return the shard's pool, or {@code null} if it is not (or no longer) in the topology */
	private DataSource shardDataSource(String shardId) {
		if (!this.topology.contains(shardId)) {
			return null;
		}
		try {
			return this.topology.dataSource(shardId);
		}
		catch (UnknownShardException ex) {
			return null; // retired meanwhile
		}
	}

	private DataSourceHealthIndicator indicator(DataSource dataSource) {
		return this.indicators.computeIfAbsent(dataSource, DataSourceHealthIndicator::new);
	}

}
