package io.github.shardtenancy.it.boot;

import io.github.shardtenancy.InvalidTenantIdException;
import io.github.shardtenancy.NoTenantBoundException;
import io.github.shardtenancy.TenantContext;
import io.github.shardtenancy.TenantSwitchedException;
import io.github.shardtenancy.UnknownTenantException;
import io.github.shardtenancy.internal.jdbc.ConnectionGuard;
import jakarta.persistence.EntityManagerFactory;
import org.hibernate.Session;
import org.hibernate.SessionFactory;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Tenant errors reach the caller as the library's typed exceptions, are not retried, and (except the tenant switch,
 * which happens inside a transaction) take no shard connection: every shard pool counts its borrows.
 */
@DisplayName("Tenant errors (H2, Spring Boot)")
class H2TenantErrorsTest {

	private static H2App app;

	private long borrowsBefore;

	@BeforeAll
	static void start() {
		app = H2App.start(H2App.newCluster("tenant-errors"), "instance",
				"shard-tenancy.shards.shard-1.maximum-pool-size=1", "shard-tenancy.shards.shard-2.maximum-pool-size=1");
		app.admin().create("acme", "shard-1");
		app.admin().create("globex", "shard-2");
	}

	@AfterAll
	static void stop() {
		app.close();
	}

	@BeforeEach
	void reset() {
		app.recorder().reset();
		app.orders().reset();
		this.borrowsBefore = app.totalBorrows();
	}

	@AfterEach
	void nothingLeftBehind() {
		assertThat(TenantContext.current()).isNull();
		assertThat(ConnectionGuard.heldTenant()).isNull();
		assertThat(app.activeConnections()).isZero();
	}

	private void assertNoShardConnectionTaken() {
		assertThat(app.totalBorrows()).as("shard connections borrowed").isEqualTo(this.borrowsBefore);
		assertThat(app.activeConnections()).isZero();
		assertThat(app.orders().bodyRuns()).isZero();
		assertThat(app.recorder().retries()).isZero();
	}

	@Test
	@DisplayName("an unknown tenant: UnknownTenantException, not retried, no shard connection taken")
	void unknownTenant() {
		try (TenantContext.Scope scope = TenantContext.bind("ghost")) {
			assertThatThrownBy(() -> app.orders().place("nobody")).isInstanceOf(UnknownTenantException.class)
				.hasMessageContaining("'ghost'");
			assertThatThrownBy(() -> app.repository().count()).isInstanceOf(UnknownTenantException.class);
		}
		assertNoShardConnectionTaken();
	}

	@Test
	@DisplayName("a malformed tenant id: InvalidTenantIdException, from binding and from a session, no shard connection taken")
	void malformedTenantId() {
		assertThatThrownBy(() -> TenantContext.bind("acme' OR '1'='1")).isInstanceOf(InvalidTenantIdException.class);
		SessionFactory sessionFactory = app.bean(EntityManagerFactory.class).unwrap(SessionFactory.class);
		assertThatThrownBy(() -> {
			try (Session session = sessionFactory.withOptions().tenantIdentifier("acme; DROP TABLE x").openSession()) {
				session.beginTransaction();
			}
		}).isInstanceOf(InvalidTenantIdException.class);
		assertNoShardConnectionTaken();
	}

	@Test
	@DisplayName("no tenant bound: NoTenantBoundException from a @Transactional method and a repository, no shard connection taken")
	void noTenantBound() {
		assertThatThrownBy(() -> app.orders().place("nobody")).isInstanceOf(NoTenantBoundException.class);
		assertThatThrownBy(() -> app.repository().count()).isInstanceOf(NoTenantBoundException.class);
		assertNoShardConnectionTaken();
	}

	@Test
	@DisplayName("a tenant switched inside a transaction: TenantSwitchedException naming both, not retried, no row for either")
	void tenantSwitchedInsideTransaction() {
		try (TenantContext.Scope scope = TenantContext.bind("acme")) {
			assertThatThrownBy(() -> app.orders().placeThenSwitch("switcher", "globex"))
				.isInstanceOf(TenantSwitchedException.class)
				.hasMessageContaining("'acme'")
				.hasMessageContaining("'globex'");
		}
		assertThat(app.orders().bodyRuns()).as("not retried").isEqualTo(1);
		assertThat(app.recorder().retries()).isZero();
		for (String shard : H2App.SHARDS) {
			assertThat(app.orders(shard, "acme", "switcher")).isZero();
			assertThat(app.orders(shard, "globex", "switcher")).isZero();
		}
	}

}
