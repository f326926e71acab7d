package io.github.shardtenancy.boot;

import io.github.shardtenancy.boot.retry.RetrySettings;
import io.github.shardtenancy.boot.retry.ShardTenancyRetry;
import io.github.shardtenancy.internal.routing.Router;
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
	ShardTenancyRetry shardTenancyRetry(Router router, ShardTenancyProperties properties,
			ObjectProvider<RetryListener> listeners) {
		RetryProperties retry = properties.getRetry();
		RetrySettings settings = new RetrySettings(retry.getMaxAttempts(), retry.getInitialDelay(),
				retry.getMultiplier(), retry.getMaxDelay(), retry.getJitter(), retry.getFreezeWait(),
				retry.isSerializationFailures());
		return new ShardTenancyRetry(router, settings, listeners.orderedStream().toList(), retry.isSafeToRerun());
	}

	@Bean
	@Role(BeanDefinition.ROLE_INFRASTRUCTURE)
	static CommittedTransactionListenerInstaller shardTenancyCommittedTransactionListenerInstaller() {
		return new CommittedTransactionListenerInstaller();
	}

}
