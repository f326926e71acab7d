package io.github.shardtenancy.internal.lifecycle;

import java.util.List;

import io.github.shardtenancy.DirectoryConflictException;
import io.github.shardtenancy.ShardStateException;
import io.github.shardtenancy.TenantAlreadyExistsException;
import io.github.shardtenancy.TenantDeletedException;
import io.github.shardtenancy.TenantState;
import io.github.shardtenancy.internal.fence.FenceState;
import io.github.shardtenancy.internal.fence.ShardFence;
import io.github.shardtenancy.internal.hibernate.ShardMultiTenantConnectionProvider;
import io.github.shardtenancy.PlacementRequest;
import io.github.shardtenancy.RouterSettings;
import io.github.shardtenancy.internal.routing.Router;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

@DisplayName("Deleting, purging and pinning tenants")
class DeletePurgeAndPinTest {

	@Test
	void aDeletedTenantIsRefusedWithATypedErrorAlsoByAnInstanceThatMissedTheDeletion() {
		try (LifecycleFixture f = LifecycleFixture.create("delete", 2)) {
			f.lifecycle.create("doomed", PlacementRequest.onShard("shard-1"));
			f.insertNote("doomed", "before");
			Router stale = f.core.newRouter(RouterSettings.defaults());
			stale.loadSnapshot();
			ShardMultiTenantConnectionProvider staleProvider = new ShardMultiTenantConnectionProvider(stale,
					f.core.topology());

			assertThat(f.lifecycle.delete("doomed").state()).isEqualTo(TenantState.DELETED);

			assertThatThrownBy(() -> f.core.router().route("doomed")).isInstanceOf(TenantDeletedException.class)
				.hasMessageContaining("doomed")
				.hasMessageContaining("shard-1");
			Throwable viaHibernate = org.assertj.core.api.Assertions.catchThrowable(() -> f.insertNote("doomed", "after"));
			assertThat(java.util.stream.Stream.iterate(viaHibernate, java.util.Objects::nonNull, Throwable::getCause))
				.hasAtLeastOneElementOfType(TenantDeletedException.class);
			assertThat(ShardFence.get(f.core.pool("shard-1"), "shard-1", "doomed").orElseThrow().state())
				.isEqualTo(FenceState.MOVED);
			// the stale instance still routes it as ACTIVE: the fence rejects it, the retry reads the directory
			assertThat(stale.cached("doomed").orElseThrow().state()).isEqualTo(TenantState.ACTIVE);
			assertThatThrownBy(() -> LifecycleFixture.withRetry(stale, 3, () -> {
				try {
					staleProvider.releaseConnection("doomed", staleProvider.getConnection("doomed"));
					return null;
				}
				catch (java.sql.SQLException ex) {
					throw new IllegalStateException(ex);
				}
			})).isInstanceOf(TenantDeletedException.class);
			assertThat(f.rows("shard-1", "doomed")).as("rows stay until the purge").isEqualTo(1);
			assertThatThrownBy(() -> f.lifecycle.create("doomed")).isInstanceOf(TenantAlreadyExistsException.class);
		}
	}

	@Test
	void purgeRemovesOnlyTheDeletedTenantsRowsFromItsShard() {
		try (LifecycleFixture f = LifecycleFixture.create("purge", 1)) {
			for (String tenant : List.of("gone", "kept")) {
				f.lifecycle.create(tenant);
				f.insertNote(tenant, "one");
				f.insertNote(tenant, "two");
			}
			assertThatThrownBy(() -> f.lifecycle.purge("gone")).as("an ACTIVE tenant cannot be purged")
				.isInstanceOf(DirectoryConflictException.class);
			f.lifecycle.delete("gone");

			assertThat(f.lifecycle.purge("gone")).isEqualTo(2);

			assertThat(f.rows("shard-1", "gone")).isZero();
			assertThat(f.rows("shard-1", "kept")).isEqualTo(2);
			assertThat(f.core.directory().find("gone").orElseThrow().state()).isEqualTo(TenantState.DELETED);
			assertThat(new DirectoryHistory(f.core.directory()).events(0))
				.anySatisfy(e -> assertThat(e.kind() + " " + e.subject() + " " + e.to())
					.isEqualTo("TENANT_PURGED gone 2 rows deleted"));
		}
	}

	@Test
	void aPinnedTenantIsNeverChosenByAutomaticPlacementAndKeepsItsShardFromBeingRetired() {
		try (LifecycleFixture f = LifecycleFixture.create("pin", 3)) {
			for (String tenant : List.of("whale", "a", "b", "c", "d")) {
				f.lifecycle.create(tenant, PlacementRequest.onShard("shard-1"));
				f.insertNote(tenant, "data");
			}
			assertThat(f.lifecycle.pin("whale")).isTrue();
			assertThat(f.lifecycle.pin("whale")).as("idempotent").isFalse();
			assertThat(f.lifecycle.isPinned("whale")).isTrue();

			List<String> moved = f.lifecycle.drain("shard-1");

			assertThat(moved).containsExactly("a", "b", "c", "d");
			assertThat(f.core.directory().find("whale").orElseThrow().shardId()).isEqualTo("shard-1");
			assertThat(f.rows("shard-1", "whale")).isEqualTo(1);
			assertThat(PlacementTest.owners(f.core.directory(), 5)).containsOnly(java.util.Map.entry("shard-1", 1L),
					java.util.Map.entry("shard-2", 2L), java.util.Map.entry("shard-3", 2L));
			for (String tenant : moved) {
				String owner = f.core.directory().find(tenant).orElseThrow().shardId();
				assertThat(f.rows(owner, tenant)).isEqualTo(1);
			}
			assertThatThrownBy(() -> f.registry.retire("shard-1")).isInstanceOf(ShardStateException.class);

			assertThat(f.lifecycle.unpin("whale")).isTrue();
			assertThat(f.lifecycle.drain("shard-1")).containsExactly("whale");
			assertThat(f.registry.retire("shard-1").state().name()).isEqualTo("RETIRED");
		}
	}

}
