package io.github.shardtenancy.micrometer.context;

import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import io.github.shardtenancy.TenantContext;
import io.micrometer.context.ContextExecutorService;
import io.micrometer.context.ContextRegistry;
import io.micrometer.context.ContextSnapshot;
import io.micrometer.context.ContextSnapshotFactory;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** The tenant carried across threads by Micrometer context-propagation, on a real one-thread pool. */
class TenantThreadLocalAccessorTest {

	private final ExecutorService pool = Executors.newSingleThreadExecutor();

	private final ContextSnapshotFactory snapshots = ContextSnapshotFactory.builder().clearMissing(true).build();

	@AfterEach
	void stop() {
		this.pool.shutdownNow();
	}

	private String runOnPool(ContextSnapshot snapshot) throws Exception {
		AtomicReference<String> seen = new AtomicReference<>("not run");
		this.pool.submit(snapshot.wrap(() -> seen.set(TenantContext.current()))).get(10, TimeUnit.SECONDS);
		return seen.get();
	}

	@Test
	@DisplayName("the accessor is found by the ServiceLoader of the global registry")
	void registeredThroughServiceLoader() {
		assertThat(ContextRegistry.getInstance().getThreadLocalAccessors())
			.anyMatch(TenantThreadLocalAccessor.class::isInstance);
	}

	@Test
	@DisplayName("a snapshot carries the submitter's tenant, and a later snapshot without a tenant runs without one on the same thread")
	void tenantIsCarriedAndNeverKept() throws Exception {
		ContextSnapshot asAcme = TenantContext.callAs("acme", this.snapshots::captureAll);
		ContextSnapshot asNobody = this.snapshots.captureAll();

		assertThat(runOnPool(asAcme)).isEqualTo("acme");
		assertThat(runOnPool(asNobody)).isNull();
	}

	@Test
	@DisplayName("a pooled thread that leaked a tenant binding runs the next task with the submitter's tenant, then gets its old binding back")
	void leakedBindingIsReplacedForTheTaskAndRestoredAfter() throws Exception {
		this.pool.submit(() -> TenantContext.bind("leaked")).get(10, TimeUnit.SECONDS);

		assertThat(runOnPool(TenantContext.callAs("globex", this.snapshots::captureAll))).isEqualTo("globex");
		assertThat(runOnPool(this.snapshots.captureAll())).isNull();
		AtomicReference<String> after = new AtomicReference<>();
		this.pool.submit(() -> after.set(TenantContext.current())).get(10, TimeUnit.SECONDS);
		assertThat(after).hasValue("leaked");
	}

	@Test
	@DisplayName("ContextExecutorService propagates the tenant to every task")
	void contextExecutorService() throws Exception {
		ExecutorService wrapped = ContextExecutorService.wrap(this.pool, () -> this.snapshots.captureAll());
		String seen = TenantContext.callAs("initech", () -> wrapped.submit(TenantContext::current).get(10, TimeUnit.SECONDS));

		assertThat(seen).isEqualTo("initech");
		assertThat(TenantContext.current()).isNull();
	}

}
