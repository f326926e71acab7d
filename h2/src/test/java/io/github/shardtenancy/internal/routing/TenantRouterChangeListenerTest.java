package io.github.shardtenancy.internal.routing;

import io.github.shardtenancy.RouteChangeListener;
import io.github.shardtenancy.RouterSettings;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;

import io.github.shardtenancy.DirectoryEntry;
import io.github.shardtenancy.TenantState;
import io.github.shardtenancy.internal.directory.Directory;
import io.github.shardtenancy.testing.ShardTenancyFixture;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

@DisplayName("Router change listeners")
class TenantRouterChangeListenerTest {

	private static ShardTenancyFixture fixture;

	private static Directory directory;

	private static final AtomicInteger tenants = new AtomicInteger();

	private final List<Router> routers = new ArrayList<>();

	@BeforeAll
	static void setUp() {
		fixture = ShardTenancyFixture.create("router-listeners", 0);
		directory = fixture.directory();
	}

	@AfterAll
	static void tearDown() {
		fixture.close();
	}

	@AfterEach
	void closeRouters() {
		this.routers.forEach(Router::close);
	}

	private Router router(RouterSettings settings) {
		Router router = new Router(directory, settings);
		this.routers.add(router);
		return router;
	}

	private static String newTenant() {
		return "listen-t" + tenants.incrementAndGet();
	}

	/** A change a listener was told of, with the entry the router routed the tenant by at that moment. */
	record Change(String tenantId, DirectoryEntry previous, DirectoryEntry current, Optional<DirectoryEntry> routedBy) {
	}

	/** Records every change, and what the router still routes the tenant by while the listener runs. */
	static final class Recorder implements RouteChangeListener {

		private final Router router;

		final List<Change> changes = Collections.synchronizedList(new ArrayList<>());

		Recorder(Router router) {
			this.router = router;
		}

		@Override
		public void routeChanged(String tenantId, DirectoryEntry previous, DirectoryEntry current) {
			this.changes.add(new Change(tenantId, previous, current, this.router.cached(tenantId)));
		}

		List<Change> of(String tenantId) {
			synchronized (this.changes) {
				return this.changes.stream().filter((c) -> c.tenantId().equals(tenantId)).toList();
			}
		}

	}

	@Test
	@DisplayName("a first read, a move seen by the sync and an invalidation are told, each before lookups see it")
	void toldBeforeTheNewEntryIsRouted() {
		String t = newTenant();
		DirectoryEntry created = directory.create(t, "shard-1", "test");
		Router router = router(RouterSettings.defaults());
		router.loadSnapshot();
		Recorder recorder = new Recorder(router);
		router.addChangeListener(recorder);

		DirectoryEntry moved = directory.update(t, created.epoch(), "shard-2", TenantState.ACTIVE, null, "test");
		router.refresh();
		router.invalidate(t);
		assertThat(router.route(t)).isEqualTo(moved);

		assertThat(recorder.of(t)).containsExactly(new Change(t, created, moved, Optional.of(created)),
				new Change(t, moved, null, Optional.empty()), new Change(t, null, moved, Optional.empty()));
	}

	@Test
	@DisplayName("cached lookups, a resync of the same entry and an older entry are not told")
	void hitsAndNonChangesAreNotTold() {
		String t = newTenant();
		DirectoryEntry created = directory.create(t, "shard-1", "test");
		Router router = router(RouterSettings.defaults());
		Recorder recorder = new Recorder(router);
		router.addChangeListener(recorder);
		router.route(t);
		DirectoryEntry moved = directory.update(t, created.epoch(), "shard-2", TenantState.ACTIVE, null, "test");
		router.refresh();
		int told = recorder.of(t).size();

		for (int i = 0; i < 100; i++) {
			router.route(t);
		}
		router.apply(moved);
		router.apply(new DirectoryEntry(t, moved.shardId(), moved.state(), null, moved.epoch(), moved.version()));
		router.apply(created);
		router.loadSnapshot();

		assertThat(told).isEqualTo(2);
		assertThat(recorder.of(t)).hasSize(told);
		assertThat(router.route(t)).isEqualTo(moved);
	}

	@Test
	@DisplayName("a deleted tenant and a tenant re-created at a new epoch are told")
	void deleteAndNewEpochAreTold() {
		String t = newTenant();
		DirectoryEntry created = directory.create(t, "shard-1", "test");
		Router router = router(RouterSettings.defaults());
		router.loadSnapshot();
		Recorder recorder = new Recorder(router);
		router.addChangeListener(recorder);

		DirectoryEntry deleted = directory.update(t, created.epoch(), "shard-1", TenantState.DELETED, null, "test");
		router.refresh();
		DirectoryEntry active = directory.update(t, deleted.epoch(), "shard-1", TenantState.ACTIVE, null, "test");
		router.refresh();

		assertThat(recorder.of(t)).extracting(Change::previous, Change::current)
			.containsExactly(org.assertj.core.groups.Tuple.tuple(created, deleted),
					org.assertj.core.groups.Tuple.tuple(deleted, active));
	}

	@Test
	@DisplayName("an entry evicted for size and read again after a move is told with the evicted entry as previous")
	void evictedForSizeIsRemembered() {
		String t = newTenant();
		String other = newTenant();
		DirectoryEntry created = directory.create(t, "shard-1", "test");
		directory.create(other, "shard-1", "test");
		Router router = router(RouterSettings.defaults().withMaximumEntries(1));
		Recorder recorder = new Recorder(router);
		router.addChangeListener(recorder);
		router.route(t);
		await("the router evicts " + t + " for size").atMost(Duration.ofSeconds(30)).until(() -> {
			router.route(other);
			return router.cached(t).isEmpty();
		});

		DirectoryEntry moved = directory.update(t, created.epoch(), "shard-2", TenantState.ACTIVE, null, "test");
		assertThat(router.route(t)).isEqualTo(moved);

		assertThat(recorder.of(t)).last().isEqualTo(new Change(t, created, moved, Optional.empty()));
	}

	@Test
	@DisplayName("a listener that throws is logged: routing goes on and the other listeners are still told")
	void failingListenerDoesNotBreakRouting() {
		String t = newTenant();
		DirectoryEntry created = directory.create(t, "shard-1", "test");
		Router router = router(RouterSettings.defaults());
		router.addChangeListener((tenantId, previous, current) -> {
			throw new IllegalStateException("listener failure for the test");
		});
		Recorder recorder = new Recorder(router);
		router.addChangeListener(recorder);

		assertThat(router.route(t)).isEqualTo(created);
		router.invalidate(t);
		assertThat(router.route(t)).isEqualTo(created);

		assertThat(recorder.of(t)).hasSize(3);
	}

	@Test
	@DisplayName("a removed listener is told nothing more")
	void removedListenerIsNotTold() {
		String t = newTenant();
		DirectoryEntry created = directory.create(t, "shard-1", "test");
		Router router = router(RouterSettings.defaults());
		Recorder recorder = new Recorder(router);
		router.addChangeListener(recorder);
		router.route(t);
		router.removeChangeListener(recorder);

		directory.update(t, created.epoch(), "shard-2", TenantState.ACTIVE, null, "test");
		router.refresh();
		router.invalidate(t);

		assertThat(recorder.of(t)).hasSize(1);
	}

}
