package io.github.shardtenancy.boot;

import io.github.shardtenancy.ShardTenancyConfigurationException;
import io.github.shardtenancy.boot.retry.ShardTenancyRetry;
import io.github.shardtenancy.ShardTenancy;
import io.github.shardtenancy.retry.RetrySettings;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Role;
import org.springframework.core.retry.RetryListener;

/**
 * The programmatic retry, and the listener on every transaction manager that tells it which transactions committed
 * inside an attempt.
 */
@Configuration(proxyBeanMethods = false)
class ShardTenancyRetryConfiguration {

	@Bean
	@ConditionalOnMissingBean
	ShardTenancyRetry shardTenancyRetry(ShardTenancy tenancy, ShardTenancyProperties properties,
			ObjectProvider<RetryListener> listeners) {
		RetryProperties retry = properties.getRetry();
		return new ShardTenancyRetry(tenancy.router(), tenancy.observer(), settings(retry), listeners.orderedStream().toList(),
				retry.isSafeToRerun());
	}

	/**
	 * @param retry the bound {@code shard-tenancy.retry.*} properties
	 * @return the core's retry settings
	 * @throws ShardTenancyConfigurationException naming the property whose value is out of range
	 */
	static RetrySettings settings(RetryProperties retry) {
		return new RetrySettings(retry.getMaxAttempts(), retry.getInitialDelay(), retry.getMultiplier(),
				retry.getMaxDelay(), retry.getJitter(), retry.getFreezeWait(), retry.isSerializationFailures(),
				retry.getRerunCheck());
	}

	@Bean
	@Role(BeanDefinition.ROLE_INFRASTRUCTURE)
	static CommittedTransactionListenerInstaller shardTenancyCommittedTransactionListenerInstaller() {
		return new CommittedTransactionListenerInstaller();
	}

}
