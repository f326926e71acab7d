package io.github.shardtenancy.boot;

import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.boot.autoconfigure.condition.ConditionEvaluationReport;
import org.springframework.boot.autoconfigure.condition.ConditionOutcome;
import org.springframework.boot.autoconfigure.condition.SpringBootCondition;
import org.springframework.context.annotation.ConditionContext;
import org.springframework.core.type.AnnotatedTypeMetadata;

/**
 * Matches unless the application excluded Boot's {@code DataSourceAutoConfiguration} (with
 * {@code @SpringBootApplication(exclude = ...)}, {@code @EnableAutoConfiguration(exclude = ...)} or
 * {@code spring.autoconfigure.exclude}): an application that takes the {@code DataSource} out of auto-configuration
 * does not get the tenant-routing one either. Reads the exclusions Boot records in its
 * {@link ConditionEvaluationReport} while it selects the auto-configurations, before their conditions are evaluated.
 */
class OnDataSourceAutoConfigurationIncludedCondition extends SpringBootCondition {

	static final String DATA_SOURCE_AUTO_CONFIGURATION = "org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration";

	@Override
	public ConditionOutcome getMatchOutcome(ConditionContext context, AnnotatedTypeMetadata metadata) {
		ConfigurableListableBeanFactory beanFactory = context.getBeanFactory();
		if (beanFactory != null
				&& ConditionEvaluationReport.get(beanFactory).getExclusions().contains(DATA_SOURCE_AUTO_CONFIGURATION)) {
			return ConditionOutcome.noMatch("the application excluded " + DATA_SOURCE_AUTO_CONFIGURATION);
		}
		return ConditionOutcome.match(DATA_SOURCE_AUTO_CONFIGURATION + " is not excluded");
	}

}
