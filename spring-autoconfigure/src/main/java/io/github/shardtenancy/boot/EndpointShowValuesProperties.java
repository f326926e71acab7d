package io.github.shardtenancy.boot;

import java.util.HashSet;
import java.util.Set;

import org.springframework.boot.actuate.endpoint.Show;

/**
 * When an Actuator endpoint of the library shows tenant ids, as Spring Boot's {@code env} and {@code configprops}
 * endpoints decide when they show values ({@code management.endpoint.env.show-values} and
 * {@code management.endpoint.env.roles}). Bound by {@link ShardTenancyEndpointProperties} and
 * {@link ShardTenancyLoadEndpointProperties}.
 *
 * <p>A plain mutable bean, populated once by Spring Boot's binder at start-up.
 */
public abstract class EndpointShowValuesProperties {

	/** When to show tenant ids; when not shown, each one is replaced by ******. Default never. */
	private Show showValues = Show.NEVER;

	/**
	 * Roles used to determine whether a user is authorized to be shown tenant ids. When empty, all authenticated users
	 * are authorized.
	 */
	private final Set<String> roles = new HashSet<>();

	public Show getShowValues() {
		return this.showValues;
	}

	public void setShowValues(Show showValues) {
		this.showValues = showValues;
	}

	public Set<String> getRoles() {
		return this.roles;
	}

}
