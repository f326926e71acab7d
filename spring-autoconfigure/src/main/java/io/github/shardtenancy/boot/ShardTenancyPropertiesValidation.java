package io.github.shardtenancy.boot;

import java.time.Duration;

import io.github.shardtenancy.ShardTenancyConfigurationException;

/**
 * The range checks of the numeric {@code shard-tenancy.*} settings, run once they are bound, so that a bad value
 * fails the start with a {@link ShardTenancyConfigurationException} naming the property and the value (explained by
 * {@link ShardTenancyFailureAnalyzer}) instead of an {@link IllegalArgumentException} from deep inside a bean. The
 * ranges are those of the objects the settings are turned into ({@code RouterSettings}, {@code RetrySettings},
 * {@code MoveSettings}, HikariCP's {@code HikariConfig}, {@code ScheduledExecutorService}). Stateless.
 */
final class ShardTenancyPropertiesValidation {

	/** HikariCP's smallest connection timeout ({@code HikariConfig.setConnectionTimeout}). */
	static final Duration MIN_CONNECTION_TIMEOUT = Duration.ofMillis(250);

	private ShardTenancyPropertiesValidation() {
	}

	/**
	 * @param p the bound settings
	 * @throws ShardTenancyConfigurationException naming the first property out of range and its value
	 */
	static void validate(ShardTenancyProperties p) {
		atLeast("shard-tenancy.directory.maximum-pool-size", p.getDirectory().getMaximumPoolSize(), 1);
		p.getShards().forEach((id, shard) -> {
			if (shard.getMaximumPoolSize() != null) {
				atLeast("shard-tenancy.shards." + id + ".maximum-pool-size", shard.getMaximumPoolSize(), 1);
			}
			if (shard.getConnectionTimeout() != null) {
				atLeast("shard-tenancy.shards." + id + ".connection-timeout", shard.getConnectionTimeout(),
						MIN_CONNECTION_TIMEOUT);
			}
		});
		atLeast("shard-tenancy.pool.connection-timeout", p.getPool().getConnectionTimeout(), MIN_CONNECTION_TIMEOUT);
		atLeast("shard-tenancy.cache.maximum-entries", p.getCache().getMaximumEntries(), 1);
		notNegative("shard-tenancy.cache.negative-ttl", p.getCache().getNegativeTtl());
		positive("shard-tenancy.sync.interval", p.getSync().getInterval());
		positive("shard-tenancy.sync.safety-poll", p.getSync().getSafetyPoll());
		// The retry settings check their own ranges, naming the shard-tenancy.retry.* property at fault.
		ShardTenancyRetryConfiguration.settings(p.getRetry());
		MoveProperties move = p.getMove();
		notNegative("shard-tenancy.move.clean-delay", move.getCleanDelay());
		atLeast("shard-tenancy.move.batch-size", move.getBatchSize(), 1);
		notNegative("shard-tenancy.move.throttle", move.getThrottle());
		atLeast("shard-tenancy.move.catch-up-lag-threshold", move.getCatchUpLagThreshold(), 0);
		atLeast("shard-tenancy.move.max-catch-up-rounds", move.getMaxCatchUpRounds(), 1);
		notNegative("shard-tenancy.move.online-clean-delay", move.getOnlineCleanDelay());
		notNegative("shard-tenancy.move.lease", move.getLease());
		positive("shard-tenancy.lifecycle.registry-sync-interval", p.getLifecycle().getRegistrySyncInterval());
		positive("shard-tenancy.reconciliation.interval", p.getReconciliation().getInterval());
		atLeast("shard-tenancy.timeline.window", p.getTimeline().getWindow(), Duration.ofSeconds(10));
		atMost("shard-tenancy.timeline.window", p.getTimeline().getWindow(), Duration.ofHours(1));
		DualReadProperties dualRead = p.getDualRead();
		if (!(dualRead.getSampleRate() >= 0.0 && dualRead.getSampleRate() <= 1.0)) {
			throw invalid("shard-tenancy.dual-read.sample-rate", dualRead.getSampleRate(), "from 0.0 to 1.0");
		}
		positive("shard-tenancy.dual-read.timeout", dualRead.getTimeout());
		atLeast("shard-tenancy.dual-read.rechecks", dualRead.getRechecks(), 0);
		notNegative("shard-tenancy.dual-read.recheck-delay", dualRead.getRecheckDelay());
		positive("shard-tenancy.load.window", p.getLoad().getWindow());
		atLeast("shard-tenancy.load.max-tenants", p.getLoad().getMaxTenants(), 1);
		positive("shard-tenancy.load.metrics-refresh", p.getLoad().getMetricsRefresh());
		share("shard-tenancy.load.hot-threshold", p.getLoad().getHotThreshold());
		RebalancerProperties rebalancer = p.getRebalancer();
		positive("shard-tenancy.rebalancer.interval", rebalancer.getInterval());
		if (!(rebalancer.getBand() >= 0) || Double.isInfinite(rebalancer.getBand())) {
			throw invalid("shard-tenancy.rebalancer.band", rebalancer.getBand(), "a fraction of the median, 0 or more");
		}
		atLeast("shard-tenancy.rebalancer.max-concurrent-moves", rebalancer.getMaxConcurrentMoves(), 1);
		atLeast("shard-tenancy.rebalancer.max-moves-per-round", rebalancer.getMaxMovesPerRound(), 1);
		notNegative("shard-tenancy.rebalancer.pause", rebalancer.getPause());
	}

	private static void share(String property, double value) {
		if (!(value > 0 && value <= 1)) {
			throw invalid(property, value, "a share greater than 0 and at most 1");
		}
	}

	private static void atLeast(String property, long value, long min) {
		if (value < min) {
			throw invalid(property, value, "at least " + min);
		}
	}

	private static void atLeast(String property, Duration value, Duration min) {
		if (value == null || value.compareTo(min) < 0) {
			throw invalid(property, value, "at least " + min.toMillis() + " ms");
		}
	}

	private static void atMost(String property, Duration value, Duration max) {
		if (value == null || value.compareTo(max) > 0) {
			throw invalid(property, value, "at most " + max.toMillis() + " ms");
		}
	}

	private static void notNegative(String property, Duration value) {
		if (value == null || value.isNegative()) {
			throw invalid(property, value, "a duration of zero or more");
		}
	}

	private static void positive(String property, Duration value) {
		if (value == null || value.isNegative() || value.isZero()) {
			throw invalid(property, value, "a positive duration");
		}
	}

	private static ShardTenancyConfigurationException invalid(String property, Object value, String expected) {
		return new ShardTenancyConfigurationException(property,
				"Invalid value '" + value + "' for " + property + ": it must be " + expected);
	}

}
