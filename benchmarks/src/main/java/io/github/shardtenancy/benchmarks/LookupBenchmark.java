package io.github.shardtenancy.benchmarks;

import java.util.concurrent.TimeUnit;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import io.github.shardtenancy.internal.directory.Directory;
import io.github.shardtenancy.DirectoryEntry;
import io.github.shardtenancy.TenantState;
import io.github.shardtenancy.RouterSettings;
import io.github.shardtenancy.internal.routing.Router;
import org.h2.jdbcx.JdbcDataSource;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

/**
 * Figure 2, lookup cost (JMH): {@link Router#route(String)} on a cached tenant versus a raw Caffeine
 * {@code getIfPresent} on a cache built the same way (same maximum size) holding the same entries. Keys cycle through
 * all entries, so both sides pay the same cache misses of the CPU.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@State(Scope.Benchmark)
public class LookupBenchmark {

	/** Cached entries. */
	@Param("131072")
	public int entries;

	private Router router;

	private Cache<String, DirectoryEntry> raw;

	private String[] keys;

	private int mask;

	/** Per-thread cursor over the keys. */
	@State(Scope.Thread)
	public static class Cursor {

		int next;

	}

	@Setup(Level.Trial)
	public void fill() {
		int size = Integer.highestOneBit(this.entries);
		this.mask = size - 1;
		// A real (empty) directory that a cached lookup never reads.
		JdbcDataSource h2 = new JdbcDataSource();
		h2.setURL("jdbc:h2:mem:lookup-benchmark");
		RouterSettings settings = RouterSettings.defaults();
		this.router = new Router(new Directory(h2), settings);
		this.raw = Caffeine.newBuilder().maximumSize(settings.maximumEntries()).build();
		this.keys = new String[size];
		for (int i = 0; i < size; i++) {
			DirectoryEntry entry = new DirectoryEntry("tenant-" + i, "shard-" + (i % 4), TenantState.ACTIVE, null, 1,
					1 + i);
			this.router.apply(entry);
			this.raw.put(entry.tenantId(), entry);
			this.keys[i] = new String(entry.tenantId()); // a distinct String, as a request would carry
		}
	}

	@Benchmark
	public DirectoryEntry routerRoute(Cursor cursor) {
		return this.router.route(this.keys[cursor.next++ & this.mask]);
	}

	@Benchmark
	public DirectoryEntry rawCaffeineGetIfPresent(Cursor cursor) {
		return this.raw.getIfPresent(this.keys[cursor.next++ & this.mask]);
	}

	/** The baseline plus reading the entry's state, as {@code route()} does and any caller of either does. */
	@Benchmark
	public TenantState rawCaffeineGetIfPresentReadingState(Cursor cursor) {
		return this.raw.getIfPresent(this.keys[cursor.next++ & this.mask]).state();
	}

}
