package io.github.shardtenancy.internal.hibernate;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.SQLWarning;
import java.sql.Statement;
import java.util.Map;
import java.util.function.Supplier;

import io.github.shardtenancy.retry.FenceRejection;
import io.github.shardtenancy.retry.RetryAttempts;
import org.hibernate.JDBCException;
import org.hibernate.boot.model.naming.Identifier;
import org.hibernate.boot.registry.StandardServiceInitiator;
import org.hibernate.boot.registry.StandardServiceRegistryBuilder;
import org.hibernate.cfg.JdbcSettings;
import org.hibernate.dialect.Dialect;
import org.hibernate.engine.jdbc.env.internal.JdbcEnvironmentInitiator;
import org.hibernate.engine.jdbc.env.spi.ExtractedDatabaseMetaData;
import org.hibernate.engine.jdbc.env.spi.IdentifierHelper;
import org.hibernate.engine.jdbc.env.spi.JdbcEnvironment;
import org.hibernate.engine.jdbc.env.spi.LobCreatorBuilder;
import org.hibernate.engine.jdbc.env.spi.NameQualifierSupport;
import org.hibernate.engine.jdbc.env.spi.QualifiedObjectNameFormatter;
import org.hibernate.engine.jdbc.spi.SqlExceptionHelper;
import org.hibernate.exception.spi.SQLExceptionConverter;
import org.hibernate.internal.util.config.ConfigurationHelper;
import org.hibernate.service.spi.ServiceContributor;
import org.hibernate.service.spi.ServiceRegistryImplementor;
import org.hibernate.sql.ast.SqlAstTranslatorFactory;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Logs shard fence rejections once, at the right level, instead of Hibernate's two WARN lines for every rejected
 * statement ({@code SQL Error: 0, SQLState: 40001} and the message, logged by {@link SqlExceptionHelper#logExceptions}
 * on the category {@code org.hibernate.orm.jdbc.error} before the exception is converted). A rejection is expected
 * traffic: the retry runs the work again, and a rejection it absorbs is logged at DEBUG; one that ends the attempts is
 * logged once at WARN by the retry ({@link RetryAttempts}). A rejection outside any retry is logged here, once, at
 * WARN. Every other {@link SQLException} is logged by Hibernate's own helper as before, with its settings
 * ({@value JdbcSettings#LOG_JDBC_ERRORS} included).
 *
 * <p>Installed as a Hibernate {@link ServiceContributor} (found through {@link java.util.ServiceLoader}): it replaces
 * the {@link JdbcEnvironment} service by Hibernate's own, built by {@link JdbcEnvironmentInitiator}, whose
 * {@link JdbcEnvironment#getSqlExceptionHelper() exception helper} is wrapped. Only SQLSTATE 40001 exceptions whose
 * message carries the fence marker ({@link FenceRejection#find}) are treated differently, so a Hibernate application
 * that has this library on its class path and does not use it is not affected.
 */
public final class FenceRejectionLogging implements ServiceContributor {

	private static final Logger log = LoggerFactory.getLogger(FenceRejectionLogging.class);

	@Override
	public void contribute(StandardServiceRegistryBuilder serviceRegistryBuilder) {
		serviceRegistryBuilder.addInitiator(new Initiator());
	}

	/** Builds Hibernate's own {@link JdbcEnvironment} and wraps it. */
	private static final class Initiator implements StandardServiceInitiator<JdbcEnvironment> {

		@Override
		public Class<JdbcEnvironment> getServiceInitiated() {
			return JdbcEnvironment.class;
		}

		@Override
		public JdbcEnvironment initiateService(Map<String, Object> configurationValues,
				ServiceRegistryImplementor registry) {
			JdbcEnvironment environment = JdbcEnvironmentInitiator.INSTANCE.initiateService(configurationValues,
					registry);
			boolean logErrors = ConfigurationHelper.getBoolean(JdbcSettings.LOG_JDBC_ERRORS, configurationValues, true);
			return new Environment(environment, new Helper(environment.getSqlExceptionHelper(), logErrors));
		}

	}

	/** Hibernate's exception helper, except for fence rejections. */
	static final class Helper extends SqlExceptionHelper {

		private final SqlExceptionHelper delegate;

		private final boolean logErrors;

		Helper(SqlExceptionHelper delegate, boolean logErrors) {
			super(delegate.getSqlExceptionConverter(), false, logErrors);
			this.delegate = delegate;
			this.logErrors = logErrors;
		}

		@Override
		public void logExceptions(SQLException sqlException, String message) {
			FenceRejection rejection = FenceRejection.find(sqlException).orElse(null);
			if (rejection == null) {
				this.delegate.logExceptions(sqlException, message);
			}
			else if (RetryAttempts.inProgress()) {
				log.debug("Shard fence rejected tenant '{}' on shard '{}' ({}, directory version seen {}, required {}); "
						+ "the retry decides: {}", rejection.tenantId(), rejection.shardId(), rejection.reason(),
						rejection.seenVersion(), rejection.requiredVersion(), message);
			}
			else if (this.logErrors) {
				log.warn("Shard fence rejected tenant '{}' on shard '{}' ({}, directory version seen {}, required {}) "
						+ "and no retry runs around the work: {}", rejection.tenantId(), rejection.shardId(),
						rejection.reason(), rejection.seenVersion(), rejection.requiredVersion(), message);
			}
		}

		@Override
		public JDBCException convert(SQLException sqlException, String message) {
			return convert(sqlException, message, "n/a");
		}

		@Override
		public JDBCException convert(SQLException sqlException, String message, String sql) {
			logExceptions(sqlException, message + " [" + sql + "]");
			return getSqlExceptionConverter().convert(sqlException, message + " [" + sqlException.getMessage() + "]",
					sql);
		}

		@Override
		public JDBCException convert(SQLException sqlException, Supplier<String> messageSupplier, String sql) {
			return convert(sqlException, messageSupplier.get(), sql);
		}

		@Override
		public SQLExceptionConverter getSqlExceptionConverter() {
			return this.delegate.getSqlExceptionConverter();
		}

		@Override
		public void setSqlExceptionConverter(SQLExceptionConverter sqlExceptionConverter) {
			this.delegate.setSqlExceptionConverter(sqlExceptionConverter);
		}

		@Override
		public void walkWarnings(SQLWarning warning, WarningHandler handler) {
			this.delegate.walkWarnings(warning, handler);
		}

		@Override
		public void logAndClearWarnings(Connection connection) {
			this.delegate.logAndClearWarnings(connection);
		}

		@Override
		public void logAndClearWarnings(Statement statement) {
			this.delegate.logAndClearWarnings(statement);
		}

		@Override
		public void handleAndClearWarnings(Connection connection, WarningHandler handler) {
			this.delegate.handleAndClearWarnings(connection, handler);
		}

		@Override
		public void handleAndClearWarnings(Statement statement, WarningHandler handler) {
			this.delegate.handleAndClearWarnings(statement, handler);
		}

	}

	/** Hibernate's {@link JdbcEnvironment} with the wrapped exception helper. */
	private record Environment(JdbcEnvironment delegate, SqlExceptionHelper helper) implements JdbcEnvironment {

		@Override
		public Dialect getDialect() {
			return this.delegate.getDialect();
		}

		@Override
		public SqlAstTranslatorFactory getSqlAstTranslatorFactory() {
			return this.delegate.getSqlAstTranslatorFactory();
		}

		@Override
		public ExtractedDatabaseMetaData getExtractedDatabaseMetaData() {
			return this.delegate.getExtractedDatabaseMetaData();
		}

		@Override
		public Identifier getCurrentCatalog() {
			return this.delegate.getCurrentCatalog();
		}

		@Override
		public Identifier getCurrentSchema() {
			return this.delegate.getCurrentSchema();
		}

		@Override
		public QualifiedObjectNameFormatter getQualifiedObjectNameFormatter() {
			return this.delegate.getQualifiedObjectNameFormatter();
		}

		@Override
		public IdentifierHelper getIdentifierHelper() {
			return this.delegate.getIdentifierHelper();
		}

		@Override
		public NameQualifierSupport getNameQualifierSupport() {
			return this.delegate.getNameQualifierSupport();
		}

		@Override
		public SqlExceptionHelper getSqlExceptionHelper() {
			return this.helper;
		}

		@Override
		public LobCreatorBuilder getLobCreatorBuilder() {
			return this.delegate.getLobCreatorBuilder();
		}

	}

}
