package io.github.shardtenancy.internal.hibernate;

import java.sql.Connection;
import java.util.List;

import io.github.shardtenancy.InvalidTenantIdException;
import io.github.shardtenancy.NoTenantBoundException;
import io.github.shardtenancy.ShardTenancyException;
import io.github.shardtenancy.TenantContext;
import io.github.shardtenancy.TenantSwitchedException;
import io.github.shardtenancy.UnknownTenantException;
import io.github.shardtenancy.internal.lifecycle.DirectoryAdmin;
import io.github.shardtenancy.internal.jdbc.ConnectionGuard;
import io.github.shardtenancy.RouterSettings;
import io.github.shardtenancy.testing.Note;
import io.github.shardtenancy.testing.ShardTenancyFixture;
import org.hibernate.Session;
import org.hibernate.SessionFactory;
import org.hibernate.Transaction;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;

import static io.github.shardtenancy.testing.Transactions.inTransaction;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Two shards, each with a pool of one connection: a connection left borrowed would make the next borrow time out, and
 * the pools' metrics trackers count every borrow.
 */
@DisplayName("Hibernate connection provider")
class ConnectionProviderTest {

	private static ShardTenancyFixture fixture;

	private static SessionFactory sessionFactory;

	private long borrowsBefore;

	@BeforeAll
	static void setUp() {
		fixture = ShardTenancyFixture.create("provider", 2, 1, RouterSettings.defaults());
		sessionFactory = fixture.sessionFactory();
		DirectoryAdmin admin = fixture.admin(fixture.router());
		admin.create("acme", "shard-1");
		admin.create("globex", "shard-2");
		admin.create("initech", "shard-2");
	}

	@AfterAll
	static void tearDown() {
		fixture.close();
	}

	@BeforeEach
	void countBorrows() {
		this.borrowsBefore = fixture.totalBorrows();
	}

	@AfterEach
	void nothingLeftBehind() throws Exception {
		assertThat(ConnectionGuard.heldTenant()).isNull();
		assertThat(TenantContext.current()).isNull();
		assertThat(fixture.activeConnections()).isZero();
		for (String shard : List.of("shard-1", "shard-2")) {
			try (Connection c = fixture.pool(shard).getConnection()) {
				assertThat(c.isValid(1)).isTrue();
			}
		}
	}

	private void assertNoShardConnectionTaken() {
		assertThat(fixture.totalBorrows()).as("shard connections borrowed").isEqualTo(this.borrowsBefore);
		assertThat(fixture.activeConnections()).isZero();
	}

	/** Runs work the way an application would and returns the library's typed error, which must be what it throws. */
	private static ShardTenancyException typedError(Executable work) {
		Throwable thrown = org.junit.jupiter.api.Assertions.assertThrows(Throwable.class, work);
		assertThat(thrown).as("the typed error itself reaches the caller").isInstanceOf(ShardTenancyException.class);
		return (ShardTenancyException) thrown;
	}

	@Test
	@DisplayName("a tenant's work is routed to its shard and its rows carry its id")
	void tenantWorkIsRoutedToItsShard() {
		long shard1Before = fixture.borrows("shard-1");
		long shard2Before = fixture.borrows("shard-2");

		inTransaction(sessionFactory, "initech", session -> {
			session.persist(new Note("routed"));
			return null;
		});

		assertThat(fixture.borrows("shard-1")).isEqualTo(shard1Before);
		assertThat(fixture.borrows("shard-2")).isEqualTo(shard2Before + 1);
		assertThat(fixture.rows("shard-2", "note", "initech")).isEqualTo(1);
		assertThat(fixture.rows("shard-1", "note", "initech")).isZero();
		List<Note> seenByGlobex = inTransaction(sessionFactory, "globex",
				session -> session.createSelectionQuery("from Note", Note.class).getResultList());
		assertThat(seenByGlobex).isEmpty();
	}

	@Test
	@DisplayName("an unknown tenant raises UnknownTenantException and takes no shard connection")
	void unknownTenantTakesNoConnection() {
		ShardTenancyException error = typedError(() -> inTransaction(sessionFactory, "ghost", session -> null));

		assertThat(error).isInstanceOf(UnknownTenantException.class).hasMessageContaining("ghost");
		assertNoShardConnectionTaken();
	}

	@Test
	@DisplayName("a malformed tenant id raises InvalidTenantIdException and takes no shard connection")
	void malformedTenantTakesNoConnection() {
		ShardTenancyException error = typedError(() -> {
			try (Session session = sessionFactory.withOptions().tenantIdentifier("acme'; --").openSession()) {
				session.beginTransaction();
			}
		});

		assertThat(error).isInstanceOf(InvalidTenantIdException.class);
		assertNoShardConnectionTaken();
	}

	@Test
	@DisplayName("no tenant bound raises NoTenantBoundException and takes no shard connection")
	void noTenantTakesNoConnection() {
		ShardTenancyException error = typedError(() -> {
			try (Session session = sessionFactory.openSession()) {
				session.beginTransaction();
			}
		});

		assertThat(error).isInstanceOf(NoTenantBoundException.class);
		assertNoShardConnectionTaken();
	}

	@Test
	@DisplayName("the routing DataSource with no tenant bound raises NoTenantBoundException and takes no shard connection")
	void routingDataSourceWithoutTenantTakesNoConnection() {
		TenantRoutingDataSource dataSource = new TenantRoutingDataSource(fixture.provider());

		assertThat(typedError(dataSource::getConnection)).isInstanceOf(NoTenantBoundException.class);
		assertNoShardConnectionTaken();
	}

	@Test
	@DisplayName("binding another tenant inside a transaction raises TenantSwitchedException and nothing is written for either")
	void tenantSwitchedInsideTransaction() {
		ShardTenancyException error;
		try (TenantContext.Scope acme = TenantContext.bind("acme"); Session session = sessionFactory.openSession()) {
			Transaction tx = session.beginTransaction();
			try {
				session.persist(new Note("acme's"));
				session.flush();
				error = typedError(() -> {
					try (TenantContext.Scope globex = TenantContext.bind("globex")) {
						session.persist(new Note("globex's"));
						session.flush();
					}
				});
			}
			finally {
				tx.rollback();
			}
			assertThat(TenantContext.current()).isEqualTo("acme");
		}

		assertThat(error).isInstanceOf(TenantSwitchedException.class)
			.hasMessageContaining("'acme'")
			.hasMessageContaining("'globex'")
			.hasMessageContaining("shard-1");
		assertThat(fixture.rows("shard-1", "note", "acme")).isZero();
		assertThat(fixture.rows("shard-1", "note", "globex")).isZero();
		assertThat(fixture.rows("shard-2", "note", "acme")).isZero();
		assertThat(fixture.rows("shard-2", "note", "globex")).isZero();
	}

	@Test
	@DisplayName("a session opened for one tenant and used after binding another raises TenantSwitchedException before borrowing")
	void sessionOfAnotherTenantTakesNoConnection() {
		ShardTenancyException error;
		try (Session session = sessionFactory.withOptions().tenantIdentifier("acme").openSession();
				TenantContext.Scope globex = TenantContext.bind("globex")) {
			error = typedError(() -> {
				session.beginTransaction();
				session.persist(new Note("whose?"));
				session.flush();
			});
		}

		assertThat(error).isInstanceOf(TenantSwitchedException.class);
		assertNoShardConnectionTaken();
		assertThat(fixture.rows("shard-1", "note", "acme")).isZero();
		assertThat(fixture.rows("shard-2", "note", "globex")).isZero();
	}

}
