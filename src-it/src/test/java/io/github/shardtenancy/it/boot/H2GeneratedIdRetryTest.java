package io.github.shardtenancy.it.boot;

import io.github.shardtenancy.retry.FenceRejection;
import io.github.shardtenancy.TenantContext;
import io.github.shardtenancy.DirectoryEntry;
import io.github.shardtenancy.internal.fence.FenceState;
import io.github.shardtenancy.internal.fence.ShardFence;
import io.github.shardtenancy.it.boot.orders.PurchaseOrder;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A new entity whose generated id was assigned in an attempt that the fence then rejected (at flush, on commit) is
 * persisted again on the retry: one row, no "detached entity passed to persist". The rejection is real: the tenant's
 * fence on shard-1 is FROZEN for the first attempt and set back to OWNED before the retry.
 */
@DisplayName("A new entity persisted in a rejected attempt is persisted cleanly on the retry (H2, Spring Boot)")
class H2GeneratedIdRetryTest {

	private static H2App app;

	private static int tenants;

	private String tenant;

	private DirectoryEntry entry;

	private TenantContext.Scope scope;

	@BeforeAll
	static void start() {
		app = H2App.start(H2App.newCluster("generated-id"), "instance");
	}

	@AfterAll
	static void stop() {
		app.close();
	}

	@BeforeEach
	void frozenUntilTheFirstRetry() {
		this.tenant = "gen-t" + (++tenants);
		this.entry = app.admin().create(this.tenant, "shard-1");
		app.recorder().reset();
		app.orders().reset();
		ShardFence.set(app.pool("shard-1"), "shard-1", this.tenant, FenceState.FROZEN, this.entry.version());
		app.recorder().beforeRetry((retry) -> ShardFence.set(app.pool("shard-1"), "shard-1", this.tenant,
				FenceState.OWNED, this.entry.version()));
		this.scope = TenantContext.bind(this.tenant);
	}

	@AfterEach
	void unbind() {
		this.scope.close();
	}

	private void assertRejectedOnceAsFrozen() {
		assertThat(app.recorder().retries()).isEqualTo(1);
		assertThat(app.recorder().failures()).singleElement()
			.satisfies(failure -> assertThat(FenceRejection.find(failure).orElseThrow().reason()).isEqualTo("FROZEN"));
	}

	@Test
	@DisplayName("through @Transactional em.persist of an entity built by the caller: one row, the id of the retry")
	void entityPersistedByATransactionalServiceIsPersistedAgain() {
		PurchaseOrder order = new PurchaseOrder("persisted twice", 42);

		app.orders().persist(order);

		assertRejectedOnceAsFrozen();
		assertThat(app.orders().bodyRuns()).isEqualTo(2);
		assertThat(order.getId()).isNotNull();
		assertThat(app.orders("shard-1", this.tenant, "persisted twice")).isEqualTo(1);
		assertThat(app.repository().findById(order.getId())).get()
			.extracting(PurchaseOrder::getCustomer)
			.isEqualTo("persisted twice");
	}

	@Test
	@DisplayName("through a Spring Data repository save of a new entity: one row")
	void entitySavedByARepositoryIsSavedAgain() {
		PurchaseOrder order = new PurchaseOrder("saved twice", 42);

		PurchaseOrder saved = app.repository().save(order);

		assertRejectedOnceAsFrozen();
		assertThat(saved.getId()).isNotNull();
		assertThat(app.orders("shard-1", this.tenant, "saved twice")).isEqualTo(1);
		assertThat(app.repository().countByCustomer("saved twice")).isEqualTo(1);
	}

	@Test
	@DisplayName("through a @Transactional method that builds the entity itself: one row")
	void entityBuiltInsideTheTransactionIsPersistedOnce() {
		app.orders().place("built inside");

		assertRejectedOnceAsFrozen();
		assertThat(app.orders().bodyRuns()).isEqualTo(2);
		assertThat(app.orders("shard-1", this.tenant, "built inside")).isEqualTo(1);
	}

}
