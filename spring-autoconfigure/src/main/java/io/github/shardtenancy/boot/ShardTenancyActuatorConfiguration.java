package io.github.shardtenancy.boot;

import java.util.LinkedHashMap;
import java.util.Map;

import io.github.shardtenancy.TenantMover;
import io.github.shardtenancy.boot.actuate.WatcherState;
import io.github.shardtenancy.boot.actuate.ShardDatabasesHealthContributor;
import io.github.shardtenancy.boot.actuate.ShardTenancyEndpoint;
import io.github.shardtenancy.boot.actuate.ShardTenancyInstancesEndpoint;
import io.github.shardtenancy.boot.actuate.ShardTenancyLoadEndpoint;
import io.github.shardtenancy.boot.actuate.ShardTenancyLoadEndpointWebExtension;
import io.github.shardtenancy.TenantLoads;
import io.github.shardtenancy.boot.actuate.ShardTenancyEndpointWebExtension;
import io.github.shardtenancy.boot.actuate.ShardTenancyHealthIndicator;
import io.github.shardtenancy.boot.actuate.TimelineRecorder;
import io.github.shardtenancy.postgresql.DirectoryWatcher;
import io.github.shardtenancy.postgresql.WatcherStatus;
import io.github.shardtenancy.MoveSettings;
import io.github.shardtenancy.ShardTenancy;
import io.github.shardtenancy.TenantRouter;
import org.jspecify.annotations.Nullable;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.boot.actuate.autoconfigure.endpoint.condition.ConditionalOnAvailableEndpoint;
import org.springframework.boot.actuate.autoconfigure.endpoint.expose.EndpointExposure;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.health.autoconfigure.contributor.ConditionalOnEnabledHealthIndicator;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.jdbc.health.DataSourceHealthIndicator;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Role;
import org.springframework.transaction.TransactionExecution;
import org.springframework.transaction.TransactionExecutionListener;

/**
 * Actuator support, each part active when its classes are on the class path: the {@code shardtenancy} endpoint (when
 * available, that is enabled and exposed, as Actuator decides for every endpoint) and its web extension (problem
 * bodies over HTTP), the {@code shardtenancyload} and {@code shardtenancyinstances} endpoints, the
 * {@code shardTenancy} health indicator ({@code management.health.shardtenancy.enabled}), and the push listener's
 * state they show. Whether the endpoints show tenant ids is bound from
 * {@code management.endpoint.shardtenancy.show-values} and {@code management.endpoint.shardtenancyload.show-values}
 * (with their {@code roles}), as Spring Boot binds {@code management.endpoint.env.show-values}.
 */
@Configuration(proxyBeanMethods = false)
class ShardTenancyActuatorConfiguration {

	@Configuration(proxyBeanMethods = false)
	@ConditionalOnClass({ DirectoryWatcher.class, Endpoint.class })
	static class WatcherStateConfiguration {

		@Bean
		@ConditionalOnMissingBean
		WatcherState shardTenancyListenerState(ObjectProvider<DirectoryWatcher> watcher) {
			return () -> {
				DirectoryWatcher w = watcher.getIfAvailable();
				if (w == null) {
					return null;
				}
				WatcherStatus status = w.status();
				Map<String, Object> out = new LinkedHashMap<>();
				out.put("state", status.state().name());
				out.put("healthy", w.isHealthy());
				out.put("downSince", status.downSince() != null ? status.downSince().toString() : null);
				out.put("lastNotificationAt",
						status.lastNotificationAt() != null ? status.lastNotificationAt().toString() : null);
				out.put("notifications", status.notifications());
				out.put("resyncs", status.resyncs());
				out.put("reconnects", status.reconnects());
				out.put("polls", status.polls());
				return out;
			};
		}

	}

	@Configuration(proxyBeanMethods = false)
	@ConditionalOnClass({ Endpoint.class, ConditionalOnAvailableEndpoint.class })
	@EnableConfigurationProperties(ShardTenancyEndpointProperties.class)
	static class EndpointConfiguration {

		@Bean
		@ConditionalOnMissingBean
		@ConditionalOnAvailableEndpoint(ShardTenancyEndpoint.class)
		ShardTenancyEndpoint shardTenancyEndpoint(ShardTenancy tenancy, ObjectProvider<WatcherState> listener,
				ObjectProvider<TenantMover> mover, ObjectProvider<MoveSettings> moveSettings,
				ObjectProvider<TimelineRecorder> timeline, ShardTenancyEndpointProperties properties) {
			ShardTenancyEndpoint endpoint = new ShardTenancyEndpoint(tenancy,
					listener.getIfAvailable(() -> WatcherState.NONE), mover,
					moveSettings.getIfAvailable(MoveSettings::defaults), properties.getShowValues());
			endpoint.setTimeline(timeline.getIfAvailable());
			return endpoint;
		}

		/**
		 * The endpoint's timeline, recorded only while the endpoint is available: the recorder observes the tenancy
		 * (retries, fence rejections, move steps) and counts the commits of every transaction manager bean.
		 */
		@Bean
		@ConditionalOnMissingBean
		@ConditionalOnAvailableEndpoint(ShardTenancyEndpoint.class)
		@ConditionalOnBooleanProperty(name = "shard-tenancy.timeline.enabled", matchIfMissing = true)
		TimelineRecorder shardTenancyTimelineRecorder(ShardTenancy tenancy, ShardTenancyProperties properties) {
			TimelineRecorder recorder = new TimelineRecorder(properties.getTimeline().getWindow());
			tenancy.addObserver(recorder);
			return recorder;
		}

		@Bean
		@Role(BeanDefinition.ROLE_INFRASTRUCTURE)
		@ConditionalOnAvailableEndpoint(ShardTenancyEndpoint.class)
		@ConditionalOnBooleanProperty(name = "shard-tenancy.timeline.enabled", matchIfMissing = true)
		static CommittedTransactionListenerInstaller shardTenancyTimelineListenerInstaller(
				ObjectProvider<TimelineRecorder> recorder) {
			return new CommittedTransactionListenerInstaller(new TimelineCommits(recorder));
		}

		@Bean
		@ConditionalOnMissingBean
		@ConditionalOnClass(name = "org.springframework.http.ProblemDetail")
		@ConditionalOnAvailableEndpoint(endpoint = ShardTenancyEndpoint.class, exposure = EndpointExposure.WEB)
		ShardTenancyEndpointWebExtension shardTenancyEndpointWebExtension(ShardTenancyEndpoint endpoint,
				ShardTenancyEndpointProperties properties) {
			return new ShardTenancyEndpointWebExtension(endpoint, properties.getShowValues(), properties.getRoles());
		}

	}

	@Configuration(proxyBeanMethods = false)
	@ConditionalOnClass({ Endpoint.class, ConditionalOnAvailableEndpoint.class })
	static class InstancesEndpointConfiguration {

		@Bean
		@ConditionalOnMissingBean
		@ConditionalOnAvailableEndpoint(ShardTenancyInstancesEndpoint.class)
		ShardTenancyInstancesEndpoint shardTenancyInstancesEndpoint(ShardTenancy tenancy) {
			return new ShardTenancyInstancesEndpoint(tenancy.instances());
		}

	}

	@Configuration(proxyBeanMethods = false)
	@ConditionalOnClass({ Endpoint.class, ConditionalOnAvailableEndpoint.class })
	@EnableConfigurationProperties(ShardTenancyLoadEndpointProperties.class)
	static class LoadEndpointConfiguration {

		@Bean
		@ConditionalOnMissingBean
		@ConditionalOnAvailableEndpoint(ShardTenancyLoadEndpoint.class)
		ShardTenancyLoadEndpoint shardTenancyLoadEndpoint(TenantLoads loads, RebalancerRuns runs,
				ShardTenancyProperties properties, ShardTenancyLoadEndpointProperties endpointProperties) {
			return new ShardTenancyLoadEndpoint(loads, runs, properties.getLoad().getHotMeasure(),
					properties.getLoad().getHotThreshold(), endpointProperties.getShowValues());
		}

		@Bean
		@ConditionalOnMissingBean
		@ConditionalOnAvailableEndpoint(endpoint = ShardTenancyLoadEndpoint.class, exposure = EndpointExposure.WEB)
		ShardTenancyLoadEndpointWebExtension shardTenancyLoadEndpointWebExtension(ShardTenancyLoadEndpoint endpoint,
				ShardTenancyLoadEndpointProperties properties) {
			return new ShardTenancyLoadEndpointWebExtension(endpoint, properties.getShowValues(),
					properties.getRoles());
		}

	}

	/**
	 * The recorder's commit counter, looked up at the first commit: the installer runs before the recorder exists.
	 */
	private static final class TimelineCommits implements TransactionExecutionListener {

		private final ObjectProvider<TimelineRecorder> recorder;

		private volatile @Nullable TransactionExecutionListener counter;

		TimelineCommits(ObjectProvider<TimelineRecorder> recorder) {
			this.recorder = recorder;
		}

		@Override
		public void afterCommit(TransactionExecution transaction, @Nullable Throwable commitFailure) {
			TransactionExecutionListener listener = this.counter;
			if (listener == null) {
				TimelineRecorder found = this.recorder.getIfAvailable();
				if (found == null) {
					return;
				}
				listener = found.transactionListener();
				this.counter = listener;
			}
			listener.afterCommit(transaction, commitFailure);
		}

	}

	@Configuration(proxyBeanMethods = false)
	@ConditionalOnClass({ DataSourceHealthIndicator.class, ConditionalOnEnabledHealthIndicator.class })
	static class DatabaseHealthConfiguration {

		/**
		 * Boot's {@code db} health, per database: Boot's own contributor would borrow from the tenant-routing
		 * {@code DataSource} with no tenant bound and report DOWN for ever. Runs before Boot's, which backs off to it.
		 */
		@Bean(name = "dbHealthContributor")
		@ConditionalOnEnabledHealthIndicator("db")
		@ConditionalOnMissingBean(name = { "dbHealthIndicator", "dbHealthContributor" })
		ShardDatabasesHealthContributor dbHealthContributor(ShardTenancy tenancy) {
			return new ShardDatabasesHealthContributor(tenancy.directoryDataSource(), tenancy.topology());
		}

	}

	@Configuration(proxyBeanMethods = false)
	@ConditionalOnClass({ HealthIndicator.class, ConditionalOnEnabledHealthIndicator.class })
	static class HealthConfiguration {

		@Bean
		@ConditionalOnMissingBean
		@ConditionalOnEnabledHealthIndicator("shardtenancy")
		ShardTenancyHealthIndicator shardTenancyHealthIndicator(TenantRouter router,
				ObjectProvider<WatcherState> listener, ObjectProvider<ShardTenancy> tenancy) {
			ShardTenancy found = tenancy.getIfUnique();
			return new ShardTenancyHealthIndicator(router, listener.getIfAvailable(() -> WatcherState.NONE),
					(found != null) ? found.instances() : null);
		}

	}

}
