package io.github.shardtenancy.boot;

import java.util.LinkedHashMap;
import java.util.Map;

import org.springframework.boot.actuate.endpoint.SecurityContext;
import org.springframework.boot.health.actuate.endpoint.AdditionalHealthEndpointPath;
import org.springframework.boot.health.actuate.endpoint.HealthEndpointGroup;
import org.springframework.boot.health.actuate.endpoint.HealthEndpointGroups;
import org.springframework.boot.health.actuate.endpoint.HealthEndpointGroupsPostProcessor;
import org.springframework.boot.health.actuate.endpoint.HttpCodeStatusMapper;
import org.springframework.boot.health.actuate.endpoint.StatusAggregator;
import org.springframework.core.env.Environment;

/**
 * Adds the {@code shardTenancy} health contributor to Boot's {@code readiness} group (the one behind
 * {@code /actuator/health/readiness} and {@code /readyz}, present when availability probes are enabled), so that an
 * instance that cannot route tenants is taken out of the load balancer. Not done when the application configures the
 * group's members itself ({@code management.endpoint.health.group.readiness.include}): add {@code shardTenancy} there.
 */
final class ReadinessGroupMembership implements HealthEndpointGroupsPostProcessor {

	static final String GROUP = "readiness";

	static final String MEMBER = "shardTenancy";

	private final boolean configuredByUser;

	ReadinessGroupMembership(Environment environment) {
		this.configuredByUser = environment.containsProperty("management.endpoint.health.group.readiness.include");
	}

	@Override
	public HealthEndpointGroups postProcessHealthEndpointGroups(HealthEndpointGroups groups) {
		HealthEndpointGroup readiness = groups.get(GROUP);
		if (readiness == null || this.configuredByUser || readiness.isMember(MEMBER)) {
			return groups;
		}
		Map<String, HealthEndpointGroup> all = new LinkedHashMap<>();
		for (String name : groups.getNames()) {
			all.put(name, groups.get(name));
		}
		all.put(GROUP, new WithMember(readiness));
		return HealthEndpointGroups.of(groups.getPrimary(), all);
	}

	private record WithMember(HealthEndpointGroup group) implements HealthEndpointGroup {

		@Override
		public boolean isMember(String name) {
			return MEMBER.equals(name) || this.group.isMember(name);
		}

		@Override
		public boolean showComponents(SecurityContext securityContext) {
			return this.group.showComponents(securityContext);
		}

		@Override
		public boolean showDetails(SecurityContext securityContext) {
			return this.group.showDetails(securityContext);
		}

		@Override
		public StatusAggregator getStatusAggregator() {
			return this.group.getStatusAggregator();
		}

		@Override
		public HttpCodeStatusMapper getHttpCodeStatusMapper() {
			return this.group.getHttpCodeStatusMapper();
		}

		@Override
		public AdditionalHealthEndpointPath getAdditionalPath() {
			return this.group.getAdditionalPath();
		}

	}

}
