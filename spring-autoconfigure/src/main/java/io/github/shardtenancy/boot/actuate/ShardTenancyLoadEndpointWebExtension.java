package io.github.shardtenancy.boot.actuate;

import java.util.Objects;
import java.util.Set;

import io.github.shardtenancy.boot.actuate.ShardTenancyLoadEndpoint.LoadDescriptor;
import io.github.shardtenancy.boot.actuate.ShardTenancyLoadEndpoint.ProposalDescriptor;
import org.springframework.boot.actuate.endpoint.OperationResponseBody;
import org.springframework.boot.actuate.endpoint.SecurityContext;
import org.springframework.boot.actuate.endpoint.Show;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;
import org.springframework.boot.actuate.endpoint.annotation.Selector;
import org.springframework.boot.actuate.endpoint.annotation.WriteOperation;
import org.springframework.boot.actuate.endpoint.web.annotation.EndpointWebExtension;

/**
 * The HTTP side of {@link ShardTenancyLoadEndpoint}: the same operations, whose tenant ids are shown or replaced by
 * {@code ******} as decided per request from its {@link SecurityContext}, as Spring Boot's {@code env} endpoint
 * decides whether values are shown: {@link Show#isShown(SecurityContext, java.util.Collection)} with
 * {@code management.endpoint.shardtenancyload.show-values} and {@code management.endpoint.shardtenancyload.roles}
 * ({@link Show#WHEN_AUTHORIZED}: an authenticated user with one of the roles, or any authenticated user without
 * roles). Thread-safe.
 */
@EndpointWebExtension(endpoint = ShardTenancyLoadEndpoint.class)
public class ShardTenancyLoadEndpointWebExtension {

	private final ShardTenancyLoadEndpoint delegate;

	private final Show showValues;

	private final Set<String> roles;

	/**
	 * @param delegate the endpoint it answers for; never {@code null}
	 * @param showValues when tenant ids are shown ({@code management.endpoint.shardtenancyload.show-values}); never
	 * {@code null}
	 * @param roles the roles that authorise a user with {@link Show#WHEN_AUTHORIZED}
	 * ({@code management.endpoint.shardtenancyload.roles}); empty: every authenticated user; never {@code null}
	 */
	public ShardTenancyLoadEndpointWebExtension(ShardTenancyLoadEndpoint delegate, Show showValues,
			Set<String> roles) {
		this.delegate = Objects.requireNonNull(delegate, "delegate");
		this.showValues = Objects.requireNonNull(showValues, "showValues");
		this.roles = Set.copyOf(roles);
	}

	/**
	 * As {@link ShardTenancyLoadEndpoint#load()}.
	 * @param securityContext the request's security context, which decides whether tenant ids are shown
	 * @return every ACTIVE shard's totals and the hot tenants; never {@code null}
	 */
	@ReadOperation
	public LoadDescriptor load(SecurityContext securityContext) {
		return this.delegate.load(shown(securityContext));
	}

	/**
	 * As {@link ShardTenancyLoadEndpoint#view(String)}.
	 * @param securityContext the request's security context, which decides whether tenant ids are shown
	 * @param view {@code traffic}, {@code proposal} or {@code last}
	 * @return the view; never {@code null}
	 */
	@ReadOperation
	public OperationResponseBody view(SecurityContext securityContext, @Selector String view) {
		return this.delegate.view(view, shown(securityContext));
	}

	/**
	 * As {@link ShardTenancyLoadEndpoint#execute()}.
	 * @param securityContext the request's security context, which decides whether tenant ids are shown
	 * @return the proposal being executed; never {@code null}
	 */
	@WriteOperation
	public ProposalDescriptor execute(SecurityContext securityContext) {
		return this.delegate.execute(shown(securityContext));
	}

	private boolean shown(SecurityContext securityContext) {
		return this.showValues.isShown(securityContext, this.roles);
	}

}
