package io.github.shardtenancy.boot;

import javax.sql.DataSource;

import io.github.shardtenancy.ShardTenancy;
import io.github.shardtenancy.TenantTasks;
import io.github.shardtenancy.boot.retry.ShardTenancyRetry;
import io.github.shardtenancy.boot.task.TransactionalTenantTasks;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnSingleCandidate;
import org.springframework.context.annotation.Bean;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.orm.jpa.JpaTransactionManager;
import org.springframework.transaction.PlatformTransactionManager;

/**
 * Tenant task runs of the application's own code: a {@link TransactionalTenantTasks} on the application's one
 * {@link PlatformTransactionManager}, the {@link ShardTenancyRetry} and the {@link TenantTasks} bean. Runs after Boot
 * defined the transaction manager (JPA or JDBC); backs off when the application defines its own
 * {@link TransactionalTenantTasks}, or has no single transaction manager (define the bean then, naming the manager
 * of the tenant-routing {@code DataSource}).
 */
@AutoConfiguration(after = ShardTenancyAutoConfiguration.class, afterName = {
		"org.springframework.boot.hibernate.autoconfigure.HibernateJpaAutoConfiguration",
		"org.springframework.boot.jdbc.autoconfigure.DataSourceTransactionManagerAutoConfiguration",
		"org.springframework.boot.transaction.autoconfigure.TransactionAutoConfiguration" })
@ConditionalOnProperty(prefix = "shard-tenancy", name = "enabled", matchIfMissing = true)
@ConditionalOnClass(PlatformTransactionManager.class)
@ConditionalOnBean({ TenantTasks.class, ShardTenancyRetry.class })
@ConditionalOnSingleCandidate(PlatformTransactionManager.class)
public final class ShardTenancyTransactionalTaskAutoConfiguration {

	/**
	 * @param tasks the tenant task runs
	 * @param retry the retry of each tenant's transaction
	 * @param transactionManager the application's transaction manager
	 * @param tenancy the tenancy, whose tenant-routing {@code DataSource} is taken when the manager names none
	 * @return the runs of application code
	 */
	@Bean
	@ConditionalOnMissingBean
	TransactionalTenantTasks transactionalTenantTasks(TenantTasks tasks, ShardTenancyRetry retry,
			PlatformTransactionManager transactionManager, ShardTenancy tenancy) {
		return new TransactionalTenantTasks(tasks, retry, transactionManager, dataSourceOf(transactionManager, tenancy));
	}

	/** @return the {@code DataSource} whose connection the manager's transactions bind */
	private static DataSource dataSourceOf(PlatformTransactionManager manager, ShardTenancy tenancy) {
		if (manager instanceof JpaTransactionManager jpa && jpa.getDataSource() != null) {
			return jpa.getDataSource();
		}
		if (manager instanceof DataSourceTransactionManager jdbc && jdbc.getDataSource() != null) {
			return jdbc.getDataSource();
		}
		return tenancy.dataSource();
	}

}
