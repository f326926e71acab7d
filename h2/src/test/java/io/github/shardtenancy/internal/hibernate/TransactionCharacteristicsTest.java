package io.github.shardtenancy.internal.hibernate;

import io.github.shardtenancy.TransactionCharacteristics;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.UUID;

import io.github.shardtenancy.TenantContext;
import io.github.shardtenancy.TenantSwitchedException;
import io.github.shardtenancy.internal.lifecycle.DirectoryAdmin;
import io.github.shardtenancy.internal.jdbc.ConnectionGuard;
import io.github.shardtenancy.RouterSettings;
import io.github.shardtenancy.testing.Note;
import io.github.shardtenancy.testing.ShardTenancyFixture;
import org.hibernate.Session;
import org.hibernate.SessionFactory;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import static io.github.shardtenancy.testing.Transactions.inTransaction;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

/**
 * Plain Hibernate (no Spring) on two H2 shards with pools of one connection: transaction characteristics declared
 * through {@link TransactionCharacteristics} are applied by the connection provider, and a session opened for one
 * tenant does not hand its entities to work bound to another.
 */
@DisplayName("transaction characteristics and the session's tenant")
class TransactionCharacteristicsTest {

	private static final String ISOLATION = "SELECT ISOLATION_LEVEL FROM INFORMATION_SCHEMA.SESSIONS "
			+ "WHERE SESSION_ID = SESSION_ID()";

	private static ShardTenancyFixture fixture;

	private static SessionFactory sessionFactory;

	@BeforeAll
	static void setUp() {
		fixture = ShardTenancyFixture.create("characteristics", 2, 1, RouterSettings.defaults());
		sessionFactory = fixture.sessionFactory();
		DirectoryAdmin admin = fixture.admin(fixture.router());
		admin.create("acme", "shard-1");
		admin.create("globex", "shard-1");
		admin.create("initech", "shard-1");
	}

	@AfterAll
	static void tearDown() {
		fixture.close();
	}

	@AfterEach
	void nothingLeftBehind() {
		assertThat(TransactionCharacteristics.current()).isNull();
		assertThat(ConnectionGuard.heldTenant()).isNull();
		assertThat(TenantContext.current()).isNull();
		assertThat(fixture.activeConnections()).isZero();
	}

	/** @return the isolation level H2 reports for the connection of a transaction of the tenant */
	private static String isolation(String tenant) {
		return inTransaction(sessionFactory, tenant,
				session -> session.createNativeQuery(ISOLATION, String.class).getSingleResult());
	}

	private static String sqlState(Throwable thrown) {
		for (Throwable t = thrown; t != null; t = t.getCause()) {
			if (t instanceof SQLException sql && sql.getSQLState() != null) {
				return sql.getSQLState();
			}
		}
		return null;
	}

	@Test
	@DisplayName("a declared isolation level is set on the borrowed connection, and the pool's next borrower gets the default")
	void isolationLevel() {
		String declared;
		try (TransactionCharacteristics.Declaration d = TransactionCharacteristics
			.begin(Connection.TRANSACTION_SERIALIZABLE, false)) {
			declared = isolation("acme");
		}
		String after = isolation("acme");

		assertThat(declared).isEqualTo("SERIALIZABLE");
		assertThat(after).isEqualTo("READ COMMITTED");
	}

	@Test
	@DisplayName("a declared read-only transaction has its write to a tenant table refused with 25006; the next borrower writes")
	void readOnly() {
		Throwable thrown;
		try (TransactionCharacteristics.Declaration d = TransactionCharacteristics.begin(null, true)) {
			thrown = catchThrowable(() -> inTransaction(sessionFactory, "initech", session -> {
				session.persist(new Note("read-only"));
				session.flush();
				return null;
			}));
		}
		inTransaction(sessionFactory, "initech", session -> {
			session.persist(new Note("read-write"));
			return null;
		});

		assertThat(sqlState(thrown)).as("%s", thrown).isEqualTo("25006");
		assertThat(fixture.rows("shard-1", "note", "initech")).isEqualTo(1);
	}

	@Test
	@DisplayName("declarations nest: the innermost applies, and closing it restores the outer one")
	void nesting() {
		try (TransactionCharacteristics.Declaration outer = TransactionCharacteristics
			.begin(Connection.TRANSACTION_REPEATABLE_READ, true)) {
			try (TransactionCharacteristics.Declaration inner = TransactionCharacteristics.begin(null, false)) {
				assertThat(isolation("acme")).isEqualTo("READ COMMITTED");
			}
			assertThat(TransactionCharacteristics.current()).isSameAs(outer);
			assertThat(isolation("acme")).isEqualTo("REPEATABLE READ");
		}
	}

	@Test
	@DisplayName("a session opened for one tenant refuses find and getReference of its loaded entity once another tenant is bound")
	void sessionOfAnotherTenant() {
		UUID id = inTransaction(sessionFactory, "acme", session -> {
			Note note = new Note("acme's");
			session.persist(note);
			return note.getId();
		});
		try (TenantContext.Scope acme = TenantContext.bind("acme"); Session session = sessionFactory.openSession()) {
			assertThat(session.find(Note.class, id).getBody()).isEqualTo("acme's");
			try (TenantContext.Scope globex = TenantContext.bind("globex")) {
				assertThat(catchThrowable(() -> session.find(Note.class, id)))
					.isInstanceOf(TenantSwitchedException.class)
					.hasMessageContaining("opened for tenant 'acme'")
					.hasMessageContaining("works as tenant 'globex'");
				assertThat(catchThrowable(() -> session.getReference(Note.class, id).getBody()))
					.isInstanceOf(TenantSwitchedException.class);
			}
			// The session's own tenant, and no tenant bound, still read it.
			assertThat(session.find(Note.class, id).getBody()).isEqualTo("acme's");
			try (TenantContext.Scope none = TenantContext.unbind()) {
				assertThat(session.find(Note.class, id).getBody()).isEqualTo("acme's");
			}
		}
	}

}
