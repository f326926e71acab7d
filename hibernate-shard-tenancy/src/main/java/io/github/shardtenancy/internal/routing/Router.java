package io.github.shardtenancy.internal.routing;

import io.github.shardtenancy.DirectoryDownPolicy;
import io.github.shardtenancy.RouterSettings;
import io.github.shardtenancy.RouterStats;
import io.github.shardtenancy.TenantRouter;
import io.github.shardtenancy.RouteChangeListener;
import io.github.shardtenancy.spi.BackgroundScheduler;
import io.github.shardtenancy.spi.RouteFeed;
import java.time.Instant;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.ReentrantLock;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import io.github.shardtenancy.DirectoryUnavailableException;
import io.github.shardtenancy.TenantDeletedException;
import io.github.shardtenancy.TenantIds;
import io.github.shardtenancy.TenantUnavailableException;
import io.github.shardtenancy.UnknownTenantException;
import io.github.shardtenancy.internal.directory.Directory;
import io.github.shardtenancy.internal.directory.DirectoryChanges;
import io.github.shardtenancy.DirectoryEntry;
import io.github.shardtenancy.TenantState;
import io.github.shardtenancy.spi.ShardTenancyObserver;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The router ({@link TenantRouter}): a Caffeine cache of directory entries, kept fresh by a background sync of the
 * entries changed since the cached directory version, and by a watcher through {@link RouteFeed}. A cached lookup is a
 * hash-map lookup; a miss reads the directory once (concurrent misses of one tenant share the read). Entries and the
 * version never go backwards. {@link #invalidate(String)} wins over a sync or snapshot load in flight: what that read
 * for the tenant is not cached, since it may predate the change behind the invalidation. {@link RouteChangeListener}s
 * are told of every entry cached, replaced or dropped, before lookups see it.
 *
 * <p>Thread-safe. {@link #start()} loads a snapshot of the whole directory in one streamed query (cached on a
 * second thread while the first reads) and starts the sync thread; {@link #close()} stops it.
 */
public class Router implements TenantRouter, RouteFeed, AutoCloseable {

	private static final Logger log = LoggerFactory.getLogger(Router.class);

	/**
	 * How many tenants invalidated during one sync or snapshot load are remembered; past it, that sync or load only
	 * updates tenants that are still cached.
	 */
	static final int MAX_TRACKED_INVALIDATIONS = 4_096;

	private final Directory directory;

	private final RouterSettings settings;

	private final Cache<String, DirectoryEntry> entries;

	private final Cache<String, Boolean> unknown;

	private final ConcurrentMap<String, CompletableFuture<DirectoryEntry>> loading = new ConcurrentHashMap<>();

	private final AtomicLong version = new AtomicLong();

	// A lock rather than a monitor: the holder reads the directory over JDBC, which would pin a virtual thread to its
	// carrier on JDK 21 to 23 (https://openjdk.org/jeps/491).
	private final ReentrantLock syncLock = new ReentrantLock();

	/** The sync or snapshot load in flight (they hold {@link #syncLock}), or {@code null} while none runs. */
	private volatile SyncPass syncInFlight;

	private final ChangeListeners listeners = new ChangeListeners();

	private final RouterCounters counters = new RouterCounters();

	private volatile boolean loaded;

	private final DirectoryHealth health = new DirectoryHealth();

	private final Observers observers = new Observers();

	private final @Nullable BackgroundScheduler backgroundScheduler;

	private @Nullable ScheduledExecutorService scheduler;

	private @Nullable Future<?> sync;

	/**
	 * @param directory the directory to read, never {@code null}
	 * @param settings cache and sync settings, never {@code null}
	 */
	public Router(Directory directory, RouterSettings settings) {
		this(directory, settings, null);
	}

	/**
	 * @param directory the directory to read, never {@code null}
	 * @param settings cache and sync settings, never {@code null}
	 * @param backgroundScheduler runs the background sync; {@code null} for a daemon thread of the router's own
	 */
	public Router(Directory directory, RouterSettings settings, @Nullable BackgroundScheduler backgroundScheduler) {
		this.backgroundScheduler = backgroundScheduler;
		this.directory = Objects.requireNonNull(directory, "directory");
		this.settings = Objects.requireNonNull(settings, "settings");
		this.entries = Caffeine.newBuilder()
			.maximumSize(settings.maximumEntries())
			// Caffeine's upkeep (replaying reads and writes into the eviction policy) runs on the thread that
			// triggers it, amortised, instead of being handed to the common pool: at a cold start of a million
			// entries handing it over costs more than doing it.
			.executor(Runnable::run)
			.<String, DirectoryEntry>evictionListener(this.listeners::evicted)
			.build();
		this.unknown = Caffeine.newBuilder().expireAfterWrite(settings.negativeTtl()).maximumSize(100_000).build();
	}

	@Override
	public DirectoryEntry route(String tenantId) {
		// Only valid tenant ids are ever cached (see apply, cacheSynced and Directory's row mapping), so a cached
		// lookup needs no check of the id: the rule is checked on a miss only.
		DirectoryEntry entry = (tenantId != null) ? this.entries.getIfPresent(tenantId) : null;
		if (entry != null) {
			this.counters.hits.increment();
		}
		else {
			TenantIds.requireValid(tenantId);
			entry = load(tenantId);
		}
		if (this.health.downSince() != null) {
			entry = checkServable(entry);
		}
		if (entry.state() == TenantState.DELETED) {
			throw new TenantDeletedException(tenantId, entry.shardId(), entry.version());
		}
		return entry;
	}

	private DirectoryEntry checkServable(DirectoryEntry entry) {
		if (this.settings.directoryDownPolicy() == DirectoryDownPolicy.FAIL_CLOSED) {
			throw new DirectoryUnavailableException(entry.tenantId(), this.version.get(),
					new IllegalStateException("directory unreachable since " + this.health.downSince()
							+ " and the policy is fail-closed"));
		}
		if (entry.state() == TenantState.MIGRATING || entry.state() == TenantState.FROZEN) {
			throw new TenantUnavailableException(entry.tenantId(), entry.shardId(), entry.version(), entry.state(),
					"the directory is unreachable (since " + this.health.downSince()
							+ ") and a tenant that is moving fails closed");
		}
		this.counters.servedStale.increment();
		return entry;
	}

	@Override
	public Optional<DirectoryEntry> cached(String tenantId) {
		return Optional.ofNullable(this.entries.getIfPresent(tenantId));
	}

	private DirectoryEntry load(String tenantId) {
		if (this.unknown.getIfPresent(tenantId) != null) {
			this.counters.negativeHits.increment();
			throw new UnknownTenantException(tenantId, this.version.get());
		}
		this.counters.misses.increment();
		CompletableFuture<DirectoryEntry> mine = new CompletableFuture<>();
		CompletableFuture<DirectoryEntry> theirs = this.loading.putIfAbsent(tenantId, mine);
		if (theirs != null) {
			return awaitLoad(tenantId, theirs);
		}
		try {
			// A load that finished between our cache miss and our putIfAbsent already answered: use its answer.
			DirectoryEntry raced = this.entries.getIfPresent(tenantId);
			if (raced != null) {
				mine.complete(raced);
				return raced;
			}
			if (this.unknown.getIfPresent(tenantId) != null) {
				mine.complete(null);
				throw new UnknownTenantException(tenantId, this.version.get());
			}
			this.counters.directoryReads.increment();
			Optional<DirectoryEntry> read;
			long readStarted = System.nanoTime();
			try {
				read = this.directory.find(tenantId);
			}
			catch (DirectoryUnavailableException ex) {
				// so that cached MIGRATING and FROZEN entries fail closed from now on
				this.health.down(ex, this.settings.directoryDownPolicy());
				throw ex;
			}
			this.observers.all().directoryLookup(System.nanoTime() - readStarted, read.isPresent());
			if (read.isEmpty()) {
				this.unknown.put(tenantId, Boolean.TRUE);
				mine.complete(null);
				throw new UnknownTenantException(tenantId, this.version.get());
			}
			DirectoryEntry applied = applyLoaded(tenantId, mine, read.get());
			mine.complete(applied);
			return applied;
		}
		catch (RuntimeException ex) {
			mine.completeExceptionally(ex);
			throw ex;
		}
		finally {
			this.loading.remove(tenantId, mine);
		}
	}

	private DirectoryEntry awaitLoad(String tenantId, CompletableFuture<DirectoryEntry> load) {
		try {
			DirectoryEntry entry = load.join();
			if (entry == null) {
				throw new UnknownTenantException(tenantId, this.version.get());
			}
			return entry;
		}
		catch (CompletionException ex) {
			if (ex.getCause() instanceof RuntimeException cause) {
				throw cause;
			}
			throw ex;
		}
	}

	/**
	 * Caches what a load read, unless {@link #invalidate(String)} dropped the tenant while the read was running: the
	 * read may predate the change that caused the invalidation, and caching it would send the retry to the same stale
	 * shard. The load's own waiters still get what it read.
	 */
	private DirectoryEntry applyLoaded(String tenantId, CompletableFuture<DirectoryEntry> load, DirectoryEntry read) {
		DirectoryEntry[] applied = { read };
		this.loading.computeIfPresent(tenantId, (key, current) -> {
			if (current == load) {
				applied[0] = apply(read);
			}
			return current;
		});
		return applied[0];
	}

	/**
	 * {@inheritDoc}
	 * @throws io.github.shardtenancy.InvalidTenantIdException if the entry's tenant id breaks {@link TenantIds}'
	 * rule; such an entry is never cached, so that a cached lookup needs no check of the id
	 */
	@Override
	public DirectoryEntry apply(DirectoryEntry entry) {
		TenantIds.requireValid(entry.tenantId());
		if (this.unknown.estimatedSize() > 0) { // usually empty: skip the removal on a cold-start load of every entry
			this.unknown.invalidate(entry.tenantId());
		}
		if (!this.listeners.isEmpty()) {
			return applyAndTell(entry);
		}
		return this.entries.asMap().merge(entry.tenantId(), entry, NewerEntry::of);
	}

	/**
	 * {@link #apply(DirectoryEntry)} with listeners: tells them of a new or different entry before caching it, outside
	 * the cache's compute functions. Every change that listeners are told of runs under their lock, so the
	 * entry read here is the one the merge replaces (a size eviction in between leaves the merge nothing to replace).
	 */
	private DirectoryEntry applyAndTell(DirectoryEntry entry) {
		String tenantId = entry.tenantId();
		synchronized (this.listeners.lock) {
			DirectoryEntry cached = this.entries.getIfPresent(tenantId);
			DirectoryEntry previous = this.listeners.previous(tenantId, cached);
			if ((cached == null || entry.isNewerOrSameAs(cached)) && !entry.equals(previous)) {
				this.listeners.tell(tenantId, previous, entry);
			}
			DirectoryEntry applied = this.entries.asMap().merge(tenantId, entry, NewerEntry::of);
			this.listeners.forgetEvicted(tenantId);
			return applied;
		}
	}

	@Override
	public void invalidate(String tenantId) {
		this.counters.invalidations.increment();
		// A read in flight may have started before the change behind this invalidation: later lookups must not join
		// it, and it must not cache what it reads (see applyLoaded).
		this.loading.remove(tenantId);
		// The same for a sync or snapshot load in flight; recorded before the entry is dropped (see applySynced).
		SyncPass sync = this.syncInFlight;
		if (sync != null) {
			sync.invalidated(tenantId);
		}
		if (this.listeners.isEmpty()) {
			this.entries.invalidate(tenantId);
		}
		else {
			synchronized (this.listeners.lock) {
				DirectoryEntry previous = this.entries.asMap().remove(tenantId);
				DirectoryEntry evicted = this.listeners.forgetEvicted(tenantId);
				this.listeners.tell(tenantId, (previous != null) ? previous : evicted, null);
			}
		}
		this.unknown.invalidate(tenantId);
	}

	@Override
	public void addChangeListener(RouteChangeListener listener) {
		this.listeners.add(listener);
	}

	@Override
	public void removeChangeListener(RouteChangeListener listener) {
		this.listeners.remove(listener);
	}

	@Override
	public long refresh() {
		this.syncLock.lock();
		try {
			SyncPass sync = new SyncPass();
			this.syncInFlight = sync;
			try {
				DirectoryChanges changes;
				try {
					changes = this.directory.changesSince(this.version.get());
				}
				catch (DirectoryUnavailableException ex) {
					this.health.down(ex, this.settings.directoryDownPolicy());
					throw ex;
				}
				for (DirectoryEntry entry : changes.entries()) {
					applySynced(entry, sync);
				}
				if (!changes.entries().isEmpty()) {
					this.counters.syncs.increment();
				}
				advanceVersion(changes.toVersion());
				this.health.up(this.version.get());
				return this.version.get();
			}
			finally {
				this.syncInFlight = null;
			}
		}
		finally {
			this.syncLock.unlock();
		}
	}

	@Override
	public long resync() {
		return loadSnapshot();
	}

	/**
	 * Loads the whole directory in one streamed query (a snapshot) and applies it; {@link #start()} does at cold start.
	 * @return the directory version the snapshot is complete up to
	 * @throws DirectoryUnavailableException if the directory cannot be read
	 */
	public long loadSnapshot() {
		this.syncLock.lock();
		try {
			SyncPass sync = new SyncPass();
			this.syncInFlight = sync;
			try {
				long snapshotVersion;
				// Entries are cached on a thread of their own while this one reads the next rows.
				try (SnapshotApplier applier = new SnapshotApplier((entry) -> applySynced(entry, sync))) {
					snapshotVersion = this.directory.snapshot(applier);
					applier.finish();
				}
				catch (DirectoryUnavailableException ex) {
					this.health.down(ex, this.settings.directoryDownPolicy());
					throw ex;
				}
				advanceVersion(snapshotVersion);
				this.loaded = true;
				this.health.up(this.version.get());
				return this.version.get();
			}
			finally {
				this.syncInFlight = null;
			}
		}
		finally {
			this.syncLock.unlock();
		}
	}

	/**
	 * Applies an entry a sync or snapshot load read, like {@link #apply(DirectoryEntry)}, except for a tenant
	 * {@link #invalidate(String) invalidated} since that sync began: its entry may predate the change behind the
	 * invalidation, so it only updates an entry a lookup cached after the invalidation (and then only if newer), and is
	 * otherwise dropped. The check runs inside the map's atomic compute, and {@code invalidate} records the tenant
	 * before it removes the entry, so either the invalidation removes what the sync applied or the sync sees it.
	 */
	private void applySynced(DirectoryEntry entry, SyncPass sync) {
		if (this.listeners.isEmpty()) {
			cacheSynced(entry, sync);
			return;
		}
		// As applyAndTell: listeners are told of what will be cached, before it is, under the change lock.
		String tenantId = entry.tenantId();
		synchronized (this.listeners.lock) {
			DirectoryEntry cached = this.entries.getIfPresent(tenantId);
			boolean caches = (cached != null) ? entry.isNewerOrSameAs(cached) : !sync.mayHaveInvalidated(tenantId);
			DirectoryEntry previous = this.listeners.previous(tenantId, cached);
			if (caches && !entry.equals(previous)) {
				this.listeners.tell(tenantId, previous, entry);
			}
			if (cacheSynced(entry, sync) != null) {
				this.listeners.forgetEvicted(tenantId);
			}
		}
	}

	private DirectoryEntry cacheSynced(DirectoryEntry entry, SyncPass sync) {
		// The directory skips rows whose tenant id breaks the rule; checked again here since route() relies on it.
		if (!TenantIds.isValid(entry.tenantId())) {
			return null;
		}
		DirectoryEntry kept = this.entries.asMap().compute(entry.tenantId(), (tenantId, cached) -> {
			if (cached != null) {
				return NewerEntry.of(cached, entry);
			}
			return sync.mayHaveInvalidated(tenantId) ? null : entry;
		});
		if (kept != null && this.unknown.estimatedSize() > 0) {
			this.unknown.invalidate(entry.tenantId());
		}
		return kept;
	}

	private void advanceVersion(long candidate) {
		this.version.accumulateAndGet(candidate, Math::max);
	}

	/**
	 * Loads the snapshot (if not loaded yet) and starts the background sync. Idempotent.
	 * @throws DirectoryUnavailableException if the first snapshot cannot be read; the router is then not ready, and
	 * the sync keeps trying
	 */
	public synchronized void start() {
		if (this.sync != null) {
			return;
		}
		BackgroundScheduler background = this.backgroundScheduler;
		if (background == null) {
			ScheduledExecutorService own = Executors.newSingleThreadScheduledExecutor(r -> {
				Thread t = new Thread(r, "shard-tenancy-directory-sync");
				t.setDaemon(true);
				return t;
			});
			this.scheduler = own;
			background = BackgroundScheduler.of(own);
		}
		this.sync = background.scheduleWithFixedDelay(this::syncQuietly, this.settings.syncInterval(),
				this.settings.syncInterval());
		if (!this.loaded) {
			loadSnapshot();
		}
	}

	private void syncQuietly() {
		try {
			if (this.loaded) {
				refresh();
			}
			else {
				loadSnapshot();
			}
		}
		catch (RuntimeException ex) {
			log.debug("Directory sync failed: {}", ex.getMessage());
		}
	}

	@Override
	public long version() {
		return this.version.get();
	}

	@Override
	public boolean isReady() {
		return this.loaded && (this.health.downSince() == null
				|| this.settings.directoryDownPolicy() == DirectoryDownPolicy.SERVE_FROM_CACHE);
	}

	@Override
	public Optional<Instant> directoryDownSince() {
		return Optional.ofNullable(this.health.downSince());
	}

	@Override
	public RouterSettings settings() {
		return this.settings;
	}

	/** @return the directory this router reads */
	public Directory directory() {
		return this.directory;
	}

	/**
	 * Adds an observer told about this router's directory reads, and about the rejections, retries and moves of the
	 * code that uses this router (the retry, the {@link io.github.shardtenancy.TenantMover}),
	 * after the observers added before; none is replaced. Adding
	 * an observer that was already added (the same instance) does nothing. Thread-safe.
	 * @param value the observer; never {@code null}
	 * @throws NullPointerException if {@code value} is {@code null}
	 */
	public void addObserver(ShardTenancyObserver value) {
		this.observers.add(value);
	}

	/**
	 * Removes an observer added before (the same instance); the others stay. Thread-safe.
	 * @param value the observer; never {@code null}
	 * @return whether it had been added
	 * @throws NullPointerException if {@code value} is {@code null}
	 */
	public boolean removeObserver(ShardTenancyObserver value) {
		return this.observers.remove(value);
	}

	/**
	 * @return all observers added, as one that tells each of them in order ({@link ShardTenancyObserver#NONE} if
	 * none was added, the observer itself if one was); never {@code null}
	 */
	public ShardTenancyObserver observer() {
		return this.observers.all();
	}

	@Override
	public RouterStats stats() {
		return this.counters.snapshot(this.entries.estimatedSize(), this.version.get());
	}

	@Override
	public synchronized void close() {
		if (this.sync != null) {
			this.sync.cancel(false);
			this.sync = null;
		}
		if (this.scheduler != null) {
			this.scheduler.shutdownNow();
			this.scheduler = null;
		}
	}

}
