package io.github.shardtenancy.internal.routing;

import io.github.shardtenancy.DirectoryDownPolicy;
import io.github.shardtenancy.RouterSettings;
import io.github.shardtenancy.RouterStats;
import io.github.shardtenancy.TenantRouter;
import io.github.shardtenancy.RouteChangeListener;
import io.github.shardtenancy.spi.RouteFeed;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import com.github.benmanes.caffeine.cache.RemovalCause;
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
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The router: an in-process Caffeine cache of directory entries, kept fresh in the background by polling the
 * directory version and by push notifications.
 *
 * <ul>
 * <li>The hot path ({@link #route(String)} on a cached tenant) is a hash-map lookup; it never reads the directory.</li>
 * <li>A miss reads the directory once (concurrent misses of one tenant share that read) and never caches a guess. An
 * unknown tenant raises {@link UnknownTenantException} and is remembered for {@link RouterSettings#negativeTtl()}
 * only.</li>
 * <li>The background sync polls the global directory version every {@link RouterSettings#syncInterval()} and applies
 * the entries changed since the cached version. Push notifications ({@link #refresh()} called by a watcher) use the
 * same path.</li>
 * <li>The cached version never goes backwards, and an entry is only replaced by one with an equal or higher
 * version, so a slow in-flight load never overwrites a newer entry.</li>
 * <li>{@link #invalidate(String)} drops exactly one entry: the reaction to a shard fence rejection. It wins over a
 * sync or snapshot load in flight: what that read for the tenant is not cached, since it may predate the change behind
 * the invalidation.</li>
 * <li>{@link RouteChangeListener}s ({@link #addChangeListener}) are told of every entry cached, replaced or dropped,
 * before lookups see the new entry; never on a cached lookup.</li>
 * </ul>
 *
 * <p>Thread-safe. {@link #start()} loads a snapshot of the whole directory in one streamed query and starts the sync
 * thread; {@link #close()} stops it.
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

	private final Object syncLock = new Object();

	/** The sync or snapshot load in flight (they hold {@link #syncLock}), or {@code null} while none runs. */
	private volatile SyncPass syncInFlight;

	private final List<RouteChangeListener> listeners = new CopyOnWriteArrayList<>();

	/** Serialises the changes listeners are told of, so that each is told against the entry it replaces. */
	private final Object changeLock = new Object();

	/**
	 * The last entry of each tenant evicted for size, kept only while listeners are registered, so that a listener
	 * is told what the tenant was routed by when it is read again.
	 */
	private final ConcurrentMap<String, DirectoryEntry> evictedForSize = new ConcurrentHashMap<>();

	private final LongAdder hits = new LongAdder();

	private final LongAdder misses = new LongAdder();

	private final LongAdder negativeHits = new LongAdder();

	private final LongAdder directoryReads = new LongAdder();

	private final LongAdder invalidations = new LongAdder();

	private final LongAdder syncs = new LongAdder();

	private final LongAdder servedStale = new LongAdder();

	private volatile boolean loaded;

	private volatile Instant directoryDownSince;

	/** The observers added, in order; guarded by itself. */
	private final List<ShardTenancyObserver> observers = new ArrayList<>();

	/** All observers as one ({@link ShardTenancyObserver#composite}), rebuilt when one is added or removed. */
	private volatile ShardTenancyObserver observer = ShardTenancyObserver.NONE;

	private ScheduledExecutorService scheduler;

	/**
	 * @param directory the directory to read, never {@code null}
	 * @param settings cache and sync settings, never {@code null}
	 */
	public Router(Directory directory, RouterSettings settings) {
		this.directory = Objects.requireNonNull(directory, "directory");
		this.settings = Objects.requireNonNull(settings, "settings");
		this.entries = Caffeine.newBuilder()
			.maximumSize(settings.maximumEntries())
			.<String, DirectoryEntry>evictionListener(this::evicted)
			.build();
		this.unknown = Caffeine.newBuilder().expireAfterWrite(settings.negativeTtl()).maximumSize(100_000).build();
	}

	/**
	 * Resolves a tenant to its directory entry.
	 * @param tenantId the tenant
	 * @return the cached (or freshly read) entry; never {@code null}
	 * @throws io.github.shardtenancy.InvalidTenantIdException if the id breaks the tenant id rule (no lookup is made)
	 * @throws UnknownTenantException if the directory has no entry for the tenant
	 * @throws io.github.shardtenancy.InvalidDirectoryEntryException on a miss, if the tenant's directory row breaks the
	 * schema's rules (unknown state, epoch below 1); other tenants are not affected
	 * @throws TenantDeletedException (a {@link TenantUnavailableException}) if the tenant is DELETED
	 * @throws TenantUnavailableException if the directory is unreachable and the entry is
	 * MIGRATING or FROZEN
	 * @throws DirectoryUnavailableException on a miss while the directory is unreachable, or on any lookup under the
	 * {@link DirectoryDownPolicy#FAIL_CLOSED} policy while it is unreachable. A miss that fails to reach the directory
	 * marks it unreachable ({@link #directoryDownSince()}) until the next successful refresh or snapshot, like a
	 * failed sync does
	 */
	@Override
	public DirectoryEntry route(String tenantId) {
		TenantIds.requireValid(tenantId);
		DirectoryEntry entry = this.entries.getIfPresent(tenantId);
		if (entry != null) {
			this.hits.increment();
		}
		else {
			entry = load(tenantId);
		}
		if (this.directoryDownSince != null) {
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
					new IllegalStateException("directory unreachable since " + this.directoryDownSince
							+ " and the policy is fail-closed"));
		}
		if (entry.state() == TenantState.MIGRATING || entry.state() == TenantState.FROZEN) {
			throw new TenantUnavailableException(entry.tenantId(), entry.shardId(), entry.version(), entry.state(),
					"the directory is unreachable (since " + this.directoryDownSince
							+ ") and a tenant that is moving fails closed");
		}
		this.servedStale.increment();
		return entry;
	}

	/**
	 * @param tenantId the tenant
	 * @return the cached entry, without reading the directory; empty if not cached
	 */
	@Override
	public Optional<DirectoryEntry> cached(String tenantId) {
		return Optional.ofNullable(this.entries.getIfPresent(tenantId));
	}

	private DirectoryEntry load(String tenantId) {
		if (this.unknown.getIfPresent(tenantId) != null) {
			this.negativeHits.increment();
			throw new UnknownTenantException(tenantId, this.version.get());
		}
		this.misses.increment();
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
			this.directoryReads.increment();
			Optional<DirectoryEntry> read;
			long readStarted = System.nanoTime();
			try {
				read = this.directory.find(tenantId);
			}
			catch (DirectoryUnavailableException ex) {
				markDirectoryDown(ex); // so that cached MIGRATING and FROZEN entries fail closed from now on
				throw ex;
			}
			this.observer.directoryLookup(System.nanoTime() - readStarted, read.isPresent());
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
	 * Applies an entry read from the directory (by a load, a watcher or a local directory write), unless the cache
	 * already holds a newer one. Drops the tenant from the negative cache. A sync applies its entries the same way,
	 * except for a tenant invalidated while it ran. When change listeners are registered and the entry differs from
	 * the one cached (or last evicted for size), they are told before it is cached.
	 * @param entry the entry
	 * @return the entry now cached: the given one, or a copy equal to it that shares the cached tenant id String, or the
	 * newer (or equal) one already there
	 */
	@Override
	public DirectoryEntry apply(DirectoryEntry entry) {
		if (this.unknown.estimatedSize() > 0) { // usually empty: skip the removal on a cold-start load of every entry
			this.unknown.invalidate(entry.tenantId());
		}
		if (!this.listeners.isEmpty()) {
			return applyAndTell(entry);
		}
		return this.entries.asMap().merge(entry.tenantId(), entry, Router::newerOf);
	}

	/**
	 * {@link #apply(DirectoryEntry)} with listeners: tells them of a new or different entry before caching it, outside
	 * the cache's compute functions. Every change that listeners are told of runs under {@link #changeLock}, so the
	 * entry read here is the one the merge replaces (a size eviction in between leaves the merge nothing to replace).
	 */
	private DirectoryEntry applyAndTell(DirectoryEntry entry) {
		String tenantId = entry.tenantId();
		synchronized (this.changeLock) {
			DirectoryEntry cached = this.entries.getIfPresent(tenantId);
			DirectoryEntry previous = (cached != null) ? cached : this.evictedForSize.get(tenantId);
			if ((cached == null || entry.isNewerOrSameAs(cached)) && !entry.equals(previous)) {
				tell(tenantId, previous, entry);
			}
			DirectoryEntry applied = this.entries.asMap().merge(tenantId, entry, Router::newerOf);
			if (!this.evictedForSize.isEmpty()) {
				this.evictedForSize.remove(tenantId);
			}
			return applied;
		}
	}

	private void tell(String tenantId, DirectoryEntry previous, DirectoryEntry current) {
		for (RouteChangeListener listener : this.listeners) {
			try {
				listener.routeChanged(tenantId, previous, current);
			}
			catch (RuntimeException ex) {
				log.warn("Route change listener {} failed for tenant '{}' ({} -> {})", listener, tenantId, previous,
						current, ex);
			}
		}
	}

	/** Caffeine's eviction listener: keeps an entry evicted for size while listeners are registered. */
	private void evicted(String tenantId, DirectoryEntry entry, RemovalCause cause) {
		if (cause == RemovalCause.SIZE && tenantId != null && entry != null && !this.listeners.isEmpty()) {
			this.evictedForSize.put(tenantId, entry);
		}
	}

	/**
	 * The entry to keep of a cached one and an incoming one: the incoming one unless the cached one is newer. The map
	 * keeps the key String of a tenant's first entry for as long as the tenant stays cached, so an incoming entry with
	 * a tenant id String of its own (pgjdbc returns a new String per read, and so does a watcher's payload parse) is
	 * copied onto the key's instance; otherwise each changed entry would keep a second copy of its tenant id (56 bytes
	 * for a 13-character id; benchmarks/RESULTS.md, figure 5).
	 */
	private static DirectoryEntry newerOf(DirectoryEntry cached, DirectoryEntry incoming) {
		if (!incoming.isNewerOrSameAs(cached)) {
			return cached;
		}
		if (incoming.tenantId() == cached.tenantId()) {
			return incoming;
		}
		if (incoming.equals(cached)) {
			return cached; // the same entry read again (a resync): nothing to replace
		}
		return new DirectoryEntry(cached.tenantId(), incoming.shardId(), incoming.state(), incoming.targetShardId(),
				incoming.epoch(), incoming.version());
	}

	/**
	 * Drops one tenant's entry (and its negative entry), so that the next lookup reads the directory. Other entries are
	 * untouched. A lookup, sync or snapshot load in flight does not cache what it read for this tenant (it may predate
	 * the change behind the invalidation); a lookup that starts after this call reads the directory again. Change
	 * listeners are told (with a {@code null} new entry) before this method returns.
	 * @param tenantId the tenant
	 */
	@Override
	public void invalidate(String tenantId) {
		this.invalidations.increment();
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
			synchronized (this.changeLock) {
				DirectoryEntry previous = this.entries.asMap().remove(tenantId);
				DirectoryEntry evicted = this.evictedForSize.remove(tenantId);
				tell(tenantId, (previous != null) ? previous : evicted, null);
			}
		}
		this.unknown.invalidate(tenantId);
	}

	/**
	 * Registers a listener told of every entry this router caches, replaces or drops from now on, before the new
	 * entry is routed by. While at least one listener is registered, the router also keeps the last entry of each
	 * tenant it evicts for size (until the tenant is read again), so that the listener can be told what the tenant
	 * was routed by. Changes applied while the listener is being registered may not be reported: register before the
	 * tenants' data is cached.
	 * @param listener the listener; never {@code null}
	 * @throws NullPointerException if {@code listener} is {@code null}
	 */
	@Override
	public void addChangeListener(RouteChangeListener listener) {
		this.listeners.add(Objects.requireNonNull(listener, "listener"));
	}

	/**
	 * Unregisters a listener; nothing happens if it was not registered. When the last one goes, the entries kept for
	 * it are dropped.
	 * @param listener the listener
	 */
	@Override
	public void removeChangeListener(RouteChangeListener listener) {
		this.listeners.remove(listener);
		if (this.listeners.isEmpty()) {
			this.evictedForSize.clear();
		}
	}

	/**
	 * Reads the entries changed since the cached version and applies them; the sync thread and push watchers call it.
	 * Concurrent calls are serialised.
	 * @return the directory version now held
	 * @throws DirectoryUnavailableException if the directory cannot be read (the router then marks it unreachable)
	 */
	@Override
	public long refresh() {
		synchronized (this.syncLock) {
			SyncPass sync = new SyncPass();
			this.syncInFlight = sync;
			try {
				DirectoryChanges changes;
				try {
					changes = this.directory.changesSince(this.version.get());
				}
				catch (DirectoryUnavailableException ex) {
					markDirectoryDown(ex);
					throw ex;
				}
				for (DirectoryEntry entry : changes.entries()) {
					applySynced(entry, sync);
				}
				if (!changes.entries().isEmpty()) {
					this.syncs.increment();
				}
				advanceVersion(changes.toVersion());
				markDirectoryUp();
				return this.version.get();
			}
			finally {
				this.syncInFlight = null;
			}
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
		synchronized (this.syncLock) {
			SyncPass sync = new SyncPass();
			this.syncInFlight = sync;
			try {
				long snapshotVersion;
				try {
					snapshotVersion = this.directory.snapshot((entry) -> applySynced(entry, sync));
				}
				catch (DirectoryUnavailableException ex) {
					markDirectoryDown(ex);
					throw ex;
				}
				advanceVersion(snapshotVersion);
				this.loaded = true;
				markDirectoryUp();
				return this.version.get();
			}
			finally {
				this.syncInFlight = null;
			}
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
		synchronized (this.changeLock) {
			DirectoryEntry cached = this.entries.getIfPresent(tenantId);
			boolean caches = (cached != null) ? entry.isNewerOrSameAs(cached) : !sync.mayHaveInvalidated(tenantId);
			DirectoryEntry previous = (cached != null) ? cached : this.evictedForSize.get(tenantId);
			if (caches && !entry.equals(previous)) {
				tell(tenantId, previous, entry);
			}
			if (cacheSynced(entry, sync) != null && !this.evictedForSize.isEmpty()) {
				this.evictedForSize.remove(tenantId);
			}
		}
	}

	private DirectoryEntry cacheSynced(DirectoryEntry entry, SyncPass sync) {
		DirectoryEntry kept = this.entries.asMap().compute(entry.tenantId(), (tenantId, cached) -> {
			if (cached != null) {
				return newerOf(cached, entry);
			}
			return sync.mayHaveInvalidated(tenantId) ? null : entry;
		});
		if (kept != null && this.unknown.estimatedSize() > 0) {
			this.unknown.invalidate(entry.tenantId());
		}
		return kept;
	}

	/**
	 * The tenants invalidated while one sync or snapshot load runs: at most {@link #MAX_TRACKED_INVALIDATIONS} (a few
	 * more under concurrent invalidations), after which every tenant counts as invalidated. Thread-safe.
	 */
	private static final class SyncPass {

		private final Set<String> invalidated = ConcurrentHashMap.newKeySet();

		private volatile boolean overflowed;

		void invalidated(String tenantId) {
			if (this.overflowed) {
				return;
			}
			if (this.invalidated.size() < MAX_TRACKED_INVALIDATIONS) {
				this.invalidated.add(tenantId);
			}
			else {
				this.overflowed = true; // never cleared, and the set never shrinks: a tenant once seen stays seen
			}
		}

		boolean mayHaveInvalidated(String tenantId) {
			return this.overflowed || this.invalidated.contains(tenantId);
		}

	}

	private void advanceVersion(long candidate) {
		this.version.accumulateAndGet(candidate, Math::max);
	}

	private void markDirectoryDown(RuntimeException ex) {
		if (this.directoryDownSince == null) {
			this.directoryDownSince = Instant.now();
			log.warn("Directory unreachable, policy {}: {}", this.settings.directoryDownPolicy(), ex.getMessage());
		}
	}

	private void markDirectoryUp() {
		if (this.directoryDownSince != null) {
			log.info("Directory reachable again (was down since {}), version {}", this.directoryDownSince,
					this.version.get());
			this.directoryDownSince = null;
		}
	}

	/**
	 * Loads the snapshot (if not loaded yet) and starts the background sync. Idempotent.
	 * @throws DirectoryUnavailableException if the first snapshot cannot be read; the router is then not ready, and
	 * the sync keeps trying
	 */
	public synchronized void start() {
		if (this.scheduler != null) {
			return;
		}
		this.scheduler = Executors.newSingleThreadScheduledExecutor(r -> {
			Thread t = new Thread(r, "shard-tenancy-directory-sync");
			t.setDaemon(true);
			return t;
		});
		long interval = this.settings.syncInterval().toMillis();
		this.scheduler.scheduleWithFixedDelay(this::syncQuietly, interval, interval, TimeUnit.MILLISECONDS);
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

	/** @return the directory version this router holds; never decreases */
	@Override
	public long version() {
		return this.version.get();
	}

	/**
	 * @return whether the router can serve: it has loaded the directory once, and the directory is reachable or the
	 * policy is to serve from the cache
	 */
	@Override
	public boolean isReady() {
		return this.loaded && (this.directoryDownSince == null
				|| this.settings.directoryDownPolicy() == DirectoryDownPolicy.SERVE_FROM_CACHE);
	}

	/** @return when the directory became unreachable, or empty while it is reachable */
	@Override
	public Optional<Instant> directoryDownSince() {
		return Optional.ofNullable(this.directoryDownSince);
	}

	/** @return the settings this router runs with */
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
		Objects.requireNonNull(value, "observer");
		synchronized (this.observers) {
			if (this.observers.stream().noneMatch((o) -> o == value)) {
				this.observers.add(value);
				this.observer = ShardTenancyObserver.composite(this.observers);
			}
		}
	}

	/**
	 * Removes an observer added before (the same instance); the others stay. Thread-safe.
	 * @param value the observer; never {@code null}
	 * @return whether it had been added
	 * @throws NullPointerException if {@code value} is {@code null}
	 */
	public boolean removeObserver(ShardTenancyObserver value) {
		Objects.requireNonNull(value, "observer");
		synchronized (this.observers) {
			boolean removed = this.observers.removeIf((o) -> o == value);
			this.observer = ShardTenancyObserver.composite(this.observers);
			return removed;
		}
	}

	/**
	 * @return all observers added, as one that tells each of them in order ({@link ShardTenancyObserver#NONE} if
	 * none was added, the observer itself if one was); never {@code null}
	 */
	public ShardTenancyObserver observer() {
		return this.observer;
	}

	/** @return a snapshot of the counters */
	@Override
	public RouterStats stats() {
		return new RouterStats(this.hits.sum(), this.misses.sum(), this.negativeHits.sum(), this.directoryReads.sum(),
				this.invalidations.sum(), this.syncs.sum(), this.servedStale.sum(), this.entries.estimatedSize(),
				this.version.get());
	}

	@Override
	public synchronized void close() {
		if (this.scheduler != null) {
			this.scheduler.shutdownNow();
			this.scheduler = null;
		}
	}

}
