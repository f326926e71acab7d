package io.github.shardtenancy.it.boot;

import io.github.shardtenancy.ShardTenancy;
import io.github.shardtenancy.internal.Internals;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicLong;

import com.zaxxer.hikari.HikariDataSource;
import com.zaxxer.hikari.metrics.IMetricsTracker;
import io.github.shardtenancy.TenantAdmin;
import io.github.shardtenancy.internal.directory.Directory;
import io.github.shardtenancy.internal.routing.Router;
import io.github.shardtenancy.internal.topology.Topology;
import io.github.shardtenancy.it.boot.orders.AttemptRecorder;
import io.github.shardtenancy.it.boot.orders.OrderService;
import io.github.shardtenancy.it.boot.orders.OrdersApplication;
import io.github.shardtenancy.it.boot.orders.PurchaseOrderRepository;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * One application instance: a real Spring Boot context of {@link OrdersApplication} with the shard-tenancy
 * auto-configuration, on a set of H2 in-memory databases (a directory and shards {@code shard-1}, {@code shard-2})
 * named after a cluster. Two instances on the same cluster share the databases, like two JVMs of one application.
 * After start, every shard pool counts its borrows (a HikariCP metrics tracker), so a test can count the attempts
 * made on each shard and prove that no shard connection was taken.
 */
public final class H2App implements AutoCloseable {

	public static final List<String> SHARDS = List.of("shard-1", "shard-2");

	private final String cluster;

	private final ConfigurableApplicationContext context;

	private final Map<String, AtomicLong> borrows = new TreeMap<>();

	private H2App(String cluster, String instance, List<String> extraProperties) {
		this.cluster = cluster;
		List<String> properties = new ArrayList<>(List.of(
				"shard-tenancy.directory.url=" + url(cluster, "directory"),
				"shard-tenancy.liquibase.shard-changelogs=db/it-h2/orders.xml",
				// the router of this instance learns about other instances' moves only from fence rejections
				"shard-tenancy.sync.interval=1h",
				"shard-tenancy.retry.max-delay=20ms",
				"shard-tenancy.move.clean-delay=0s", // the tests check the source is clean right after a move
				"shard-tenancy.actor=" + instance,
				"spring.liquibase.enabled=false",
				"spring.jmx.enabled=false"));
		for (String shard : SHARDS) {
			properties.add("shard-tenancy.shards." + shard + ".url=" + url(cluster, shard));
		}
		properties.addAll(extraProperties);
		this.context = new SpringApplicationBuilder(OrdersApplication.class).web(WebApplicationType.NONE)
			.properties(properties.toArray(String[]::new))
			.run();
		for (String shard : SHARDS) {
			AtomicLong counter = new AtomicLong();
			pool(shard).setMetricsTrackerFactory((poolName, stats) -> new IMetricsTracker() {
				@Override
				public void recordConnectionAcquiredNanos(long elapsedAcquiredNanos) {
					counter.incrementAndGet();
				}
			});
			this.borrows.put(shard, counter);
		}
	}

	/** @return a new cluster name, unique in this JVM */
	public static String newCluster(String testName) {
		return testName + "-" + UUID.randomUUID().toString().substring(0, 8);
	}

	/**
	 * @param cluster the cluster (shared databases)
	 * @param instance the instance's name, recorded as the directory actor
	 * @param extraProperties more {@code key=value} properties
	 * @return a started instance
	 */
	public static H2App start(String cluster, String instance, String... extraProperties) {
		return new H2App(cluster, instance, List.of(extraProperties));
	}

	public static String url(String cluster, String database) {
		return "jdbc:h2:mem:" + cluster + "-" + database + ";DB_CLOSE_DELAY=-1;LOCK_TIMEOUT=10000";
	}

	public <T> T bean(Class<T> type) {
		return this.context.getBean(type);
	}

	public TenantAdmin admin() {
		return bean(TenantAdmin.class);
	}

	public Router router() {
		return Internals.router(bean(ShardTenancy.class));
	}

	public Directory directory() {
		return Internals.directory(bean(ShardTenancy.class));
	}

	public Topology topology() {
		return Internals.topology(bean(ShardTenancy.class));
	}

	public OrderService orders() {
		return bean(OrderService.class);
	}

	public PurchaseOrderRepository repository() {
		return bean(PurchaseOrderRepository.class);
	}

	public AttemptRecorder recorder() {
		return bean(AttemptRecorder.class);
	}

	public HikariDataSource pool(String shard) {
		return (HikariDataSource) topology().shard(shard).dataSource();
	}

	/** @return connections borrowed from the shard's pool since the instance started */
	public long borrows(String shard) {
		return this.borrows.get(shard).get();
	}

	/** @return connections borrowed from all shard pools since the instance started */
	public long totalBorrows() {
		return this.borrows.values().stream().mapToLong(AtomicLong::get).sum();
	}

	/** @return connections in use in all shard pools now */
	public int activeConnections() {
		return SHARDS.stream().mapToInt(s -> pool(s).getHikariPoolMXBean().getActiveConnections()).sum();
	}

	/**
	 * @return a new physical connection to a shard's database, outside every pool (close it)
	 * @throws SQLException if H2 refuses
	 */
	public Connection rawConnection(String shard) throws SQLException {
		return DriverManager.getConnection(url(this.cluster, shard));
	}

	/**
	 * Counts a tenant's orders on a shard, on a connection outside the pools (so no borrow is counted).
	 * @param shard the shard
	 * @param tenant the tenant
	 * @param customer the customer, or {@code null} for all
	 * @return the rows
	 */
	public long orders(String shard, String tenant, String customer) {
		try (Connection c = rawConnection(shard);
				PreparedStatement ps = c.prepareStatement("SELECT COUNT(*) FROM purchase_order WHERE tenant_id = ?"
						+ (customer != null ? " AND customer = ?" : ""))) {
			ps.setString(1, tenant);
			if (customer != null) {
				ps.setString(2, customer);
			}
			try (ResultSet rs = ps.executeQuery()) {
				rs.next();
				return rs.getLong(1);
			}
		}
		catch (SQLException ex) {
			throw new IllegalStateException(ex);
		}
	}

	@Override
	public void close() {
		this.context.close();
	}

}
