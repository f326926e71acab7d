package io.github.shardtenancy.boot;

import io.github.shardtenancy.MoveSettings;
import io.github.shardtenancy.ShardTenancyConfigurationException;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * The {@link MoveSettings} the tenancy's online moves use (slot moves, overrides, drains), from
 * {@code shard-tenancy.move.*}; backs off to the application's own. The mover itself is the tenancy's
 * ({@link ShardTenancyCoreConfiguration}).
 */
@Configuration(proxyBeanMethods = false)
class ShardTenancyMoveConfiguration {

	/**
	 * The settings of online moves (the lifecycle's); the admin's stop-the-world moves use them with capture off and
	 * {@code shard-tenancy.move.clean-delay}.
	 */
	@Bean
	@ConditionalOnMissingBean
	MoveSettings shardTenancyMoveSettings(ShardTenancyProperties properties) {
		MoveProperties move = properties.getMove();
		try {
			return new MoveSettings(move.getBatchSize(), move.getThrottle(), move.getCatchUpLagThreshold(),
					move.getMaxCatchUpRounds(), move.getOnlineCleanDelay(), true, move.getSoak());
		}
		catch (IllegalArgumentException | NullPointerException ex) {
			throw new ShardTenancyConfigurationException("shard-tenancy.move",
					"Invalid online move settings under shard-tenancy.move (batch-size >= 1, catch-up-lag-threshold "
							+ ">= 0, max-catch-up-rounds >= 1, throttle, online-clean-delay and soak not negative): "
							+ ex.getMessage());
		}
	}

}
