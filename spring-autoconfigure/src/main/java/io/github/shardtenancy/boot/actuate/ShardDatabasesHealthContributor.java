package io.github.shardtenancy.boot.actuate;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Stream;

import javax.sql.DataSource;

import io.github.shardtenancy.internal.directory.Directory;
import io.github.shardtenancy.internal.topology.Topology;
import org.springframework.boot.health.contributor.CompositeHealthContributor;
import org.springframework.boot.health.contributor.HealthContributor;
import org.springframework.boot.jdbc.health.DataSourceHealthIndicator;

/**
 * The {@code db} health of a sharded application: one Boot {@link DataSourceHealthIndicator} for the directory
 * database ({@code directory}) and one per shard of the topology (named by shard id), each checking a pooled
 * connection of its own database. It replaces Boot's {@code db} contributor, which would ask the tenant-routing
 * {@code DataSource} for a connection with no tenant bound and so report DOWN for ever. The shards are read from the
 * topology each time health is asked, so shards added at runtime are included and retired ones dropped. Thread-safe.
 */
public final class ShardDatabasesHealthContributor implements CompositeHealthContributor {

	/** Name of the directory database's entry. */
	public static final String DIRECTORY = "directory";

	private final Directory directory;

	private final Topology topology;

	private final Map<DataSource, DataSourceHealthIndicator> indicators = new ConcurrentHashMap<>();

	/**
	 * @param directory the directory (its database is checked as {@code directory})
	 * @param topology the shards (each checked under its shard id)
	 */
	public ShardDatabasesHealthContributor(Directory directory, Topology topology) {
		this.directory = directory;
		this.topology = topology;
	}

	@Override
	public HealthContributor getContributor(String name) {
		if (DIRECTORY.equals(name)) {
			return indicator(this.directory.dataSource());
		}
		return this.topology.find(name).map((shard) -> (HealthContributor) indicator(shard.dataSource())).orElse(null);
	}

	@Override
	public Stream<Entry> stream() {
		Stream<Entry> shards = this.topology.shardIds()
			.stream()
			.sorted()
			.flatMap((id) -> this.topology.find(id).stream())
			.map((shard) -> new Entry(shard.id(), indicator(shard.dataSource())));
		return Stream.concat(Stream.of(new Entry(DIRECTORY, indicator(this.directory.dataSource()))), shards);
	}

	private DataSourceHealthIndicator indicator(DataSource dataSource) {
		return this.indicators.computeIfAbsent(dataSource, DataSourceHealthIndicator::new);
	}

}
