package io.github.shardtenancy.boot;

import java.sql.SQLException;

import io.github.shardtenancy.TenantSwitchedException;
import io.github.shardtenancy.SessionTenantCheck;
import io.github.shardtenancy.TransactionCharacteristics;
import jakarta.persistence.EntityManager;
import jakarta.persistence.PersistenceException;
import org.hibernate.ConnectionReleaseMode;
import org.hibernate.engine.spi.SessionImplementor;
import org.springframework.orm.jpa.vendor.HibernateJpaDialect;
import org.springframework.transaction.TransactionDefinition;
import org.springframework.transaction.TransactionException;
import org.springframework.transaction.support.DelegatingTransactionDefinition;
import org.springframework.transaction.support.ResourceTransactionDefinition;

/**
 * Spring's {@link HibernateJpaDialect} for the library's shard connections: honours the isolation level and the
 * read-only flag of {@code @Transactional} (and of {@code TransactionTemplate}) on the shard transaction, and refuses a
 * session opened for another tenant when a transaction begins.
 *
 * <p>Spring's dialect sets isolation and read-only on the session's connection only when Hibernate holds that connection
 * for the whole session (release mode {@code ON_CLOSE}), and otherwise refuses a non-default isolation level with
 * {@link org.springframework.transaction.InvalidIsolationLevelException}. The library releases the shard connection
 * after each transaction and borrows it only when the transaction first needs it, so this dialect
 * {@linkplain TransactionCharacteristics#begin declares} the isolation and read-only flag to the connection provider
 * instead, which sets them on the connection it borrows for the transaction, before the fence begin. The declaration
 * ends in {@link #cleanupTransaction}. A transaction with the defaults begun inside one that declared its own
 * ({@code REQUIRES_NEW}) declares the defaults, so that it does not inherit the outer one's. A read-only transaction refuses writes in the database: PostgreSQL with
 * SQLSTATE 25006 ({@code BEGIN READ ONLY}, no extra round trip); on H2, which has no read-only transactions, the fence
 * trigger refuses writes to tenant tables with the same SQLSTATE. A non-default isolation level costs one round trip
 * on PostgreSQL ({@code SET SESSION CHARACTERISTICS}), and one more when the pool resets it. When the application has
 * configured Hibernate to hold connections for the whole session ({@code ON_CLOSE}), Spring's own handling is used.
 *
 * <p>Before anything else, {@link #beginTransaction} raises {@link TenantSwitchedException} if a tenant is bound and
 * the session was opened for another tenant (or with none bound), as with open session in view.
 *
 * <p>Installed by the auto-configuration on Boot's {@code entityManagerFactory} unless the application set a JPA
 * dialect of its own. Thread-safe.
 */
public class ShardTenancyJpaDialect extends HibernateJpaDialect {

	/**
	 * @throws TenantSwitchedException if a tenant is bound on this thread and the session was opened for another one
	 * (or with none bound)
	 * @throws PersistenceException if Hibernate cannot begin the transaction
	 * @throws SQLException if preparing a held connection fails (only with release mode {@code ON_CLOSE})
	 * @throws TransactionException as {@link HibernateJpaDialect#beginTransaction} (an isolation level it cannot
	 * apply, only with a prepare-connection flag switched off)
	 */
	@Override
	public Object beginTransaction(EntityManager entityManager, TransactionDefinition definition)
			throws PersistenceException, SQLException, TransactionException {
		SessionImplementor session = entityManager.unwrap(SessionImplementor.class);
		SessionTenantCheck.requireSessionOf(session.getTenantIdentifierValue());
		boolean isolationNeeded = definition.getIsolationLevel() != TransactionDefinition.ISOLATION_DEFAULT;
		if (!isolationNeeded && !definition.isReadOnly() && TransactionCharacteristics.current() == null) {
			return super.beginTransaction(entityManager, definition);
		}
		if (ConnectionReleaseMode.ON_CLOSE.equals(session.getJdbcCoordinator()
			.getLogicalConnection()
			.getConnectionHandlingMode()
			.getReleaseMode())) {
			// The session holds its connection: Spring prepares it itself.
			return super.beginTransaction(entityManager, definition);
		}
		TransactionCharacteristics.Declaration declared = TransactionCharacteristics
			.begin(isolationNeeded ? definition.getIsolationLevel() : null, definition.isReadOnly());
		try {
			Object data = super.beginTransaction(entityManager, new DefaultIsolation(definition));
			return new DeclaredTransactionData(data, declared);
		}
		catch (RuntimeException | SQLException ex) {
			declared.close();
			throw ex;
		}
	}

	@Override
	public void cleanupTransaction(Object transactionData) {
		if (transactionData instanceof DeclaredTransactionData declared) {
			try {
				super.cleanupTransaction(declared.data);
			}
			finally {
				declared.declaration.close();
			}
			return;
		}
		super.cleanupTransaction(transactionData);
	}

	/** Spring's transaction data and the characteristics declared for the transaction. */
	private record DeclaredTransactionData(Object data, TransactionCharacteristics.Declaration declaration) {
	}

	/** The definition with the default isolation level, which the provider applies instead of Spring. */
	private static final class DefaultIsolation extends DelegatingTransactionDefinition
			implements ResourceTransactionDefinition {

		private final boolean localResource;

		DefaultIsolation(TransactionDefinition target) {
			super(target);
			this.localResource = target instanceof ResourceTransactionDefinition resource && resource.isLocalResource();
		}

		@Override
		public int getIsolationLevel() {
			return ISOLATION_DEFAULT;
		}

		@Override
		public boolean isLocalResource() {
			return this.localResource;
		}

	}

}
