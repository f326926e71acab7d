package io.github.shardtenancy.it.boot;

import java.util.UUID;

import io.github.shardtenancy.TenantContext;
import io.github.shardtenancy.DirectoryEntry;
import io.github.shardtenancy.retry.FenceRejection;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.springframework.transaction.CannotCreateTransactionException;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Two instances of the application on the same H2 databases. Instance B moves a tenant; instance A, whose router
 * still caches the old owner (its background sync is slowed down to an hour), routes the next transaction there.
 */
@DisplayName("A stale route is rejected by the old owner and retried on the new one (H2, Spring Boot)")
class H2StaleRouteRetryTest {

	private static H2App a;

	private static H2App b;

	@BeforeAll
	static void start() {
		String cluster = H2App.newCluster("stale-route");
		a = H2App.start(cluster, "instance-a");
		b = H2App.start(cluster, "instance-b");
	}

	@AfterAll
	static void stop() {
		b.close();
		a.close();
	}

	@Test
	@DisplayName("after another instance moved t, t's next transaction is rejected on shard-1, commits on shard-2 "
			+ "in exactly 2 attempts, and the next 100 go straight to shard-2")
	void staleRouterIsRejectedAndRetriedOnNewOwner() {
		String t = "stale-t";
		DirectoryEntry created = a.admin().create(t, "shard-1");
		try (TenantContext.Scope scope = TenantContext.bind(t)) {
			a.orders().place("before the move");
		}
		assertThat(a.orders("shard-1", t, "before the move")).isEqualTo(1);

		long flipVersion = b.admin().move(t, "shard-2").flipVersion();
		assertThat(a.router().cached(t)).as("instance A did not hear of the move").contains(created);
		a.recorder().reset();
		a.orders().reset();
		long shard1 = a.borrows("shard-1");
		long shard2 = a.borrows("shard-2");

		UUID id;
		try (TenantContext.Scope scope = TenantContext.bind(t)) {
			id = a.orders().place("after the move");
		}

		assertThat(id).isNotNull();
		assertThat(a.recorder().retries()).as("retries: exactly 2 attempts").isEqualTo(1);
		assertThat(a.borrows("shard-1") - shard1).as("attempts on shard-1").isEqualTo(1);
		assertThat(a.borrows("shard-2") - shard2).as("attempts on shard-2").isEqualTo(1);
		assertThat(a.orders().bodyRuns()).as("the rejected attempt never ran the method body").isEqualTo(1);
		assertThat(a.recorder().failures()).singleElement().satisfies(failure -> {
			assertThat(failure).isInstanceOf(CannotCreateTransactionException.class);
			FenceRejection rejection = FenceRejection.find(failure).orElseThrow();
			assertThat(rejection.tenantId()).isEqualTo(t);
			assertThat(rejection.shardId()).isEqualTo("shard-1");
			assertThat(rejection.reason()).isEqualTo("MOVED");
			assertThat(rejection.seenVersion()).isEqualTo(created.version());
			assertThat(rejection.requiredVersion()).isEqualTo(flipVersion);
		});
		assertThat(a.orders("shard-2", t, "after the move")).isEqualTo(1);
		assertThat(a.orders("shard-1", t, null)).as("nothing left or written on shard-1").isZero();
		assertThat(a.router().cached(t)).get().extracting(DirectoryEntry::shardId).isEqualTo("shard-2");

		a.recorder().reset();
		long shard1Before100 = a.borrows("shard-1");
		long shard2Before100 = a.borrows("shard-2");
		try (TenantContext.Scope scope = TenantContext.bind(t)) {
			for (int i = 0; i < 100; i++) {
				a.orders().place("straight " + i);
			}
		}
		assertThat(a.recorder().retries()).as("retries in the next 100").isZero();
		assertThat(a.recorder().failures()).isEmpty();
		assertThat(a.borrows("shard-1") - shard1Before100).as("attempts on shard-1").isZero();
		assertThat(a.borrows("shard-2") - shard2Before100).as("attempts on shard-2").isEqualTo(100);
		assertThat(a.orders("shard-2", t, null)).isEqualTo(102);
		assertThat(a.orders("shard-1", t, null)).isZero();
		assertThat(a.router().stats().invalidations()).isEqualTo(1);
	}

}
