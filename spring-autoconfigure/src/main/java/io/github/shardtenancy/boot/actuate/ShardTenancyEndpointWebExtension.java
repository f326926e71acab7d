package io.github.shardtenancy.boot.actuate;

import java.util.Objects;
import java.util.Set;

import io.github.shardtenancy.DirectoryUnavailableException;
import io.github.shardtenancy.MoveInProgressException;
import io.github.shardtenancy.ShardTenancyException;
import io.github.shardtenancy.ShardUnavailableException;
import io.github.shardtenancy.TenantIds;
import io.github.shardtenancy.UnknownShardException;
import io.github.shardtenancy.UnknownTenantException;
import io.github.shardtenancy.boot.actuate.ShardTenancyEndpoint.MoveDescriptor;
import io.github.shardtenancy.boot.actuate.ShardTenancyEndpoint.TenantDescriptor;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.actuate.endpoint.InvalidEndpointRequestException;
import org.springframework.boot.actuate.endpoint.SecurityContext;
import org.springframework.boot.actuate.endpoint.Show;
import org.springframework.boot.actuate.endpoint.annotation.DeleteOperation;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;
import org.springframework.boot.actuate.endpoint.annotation.Selector;
import org.springframework.boot.actuate.endpoint.annotation.WriteOperation;
import org.springframework.boot.actuate.endpoint.web.WebEndpointResponse;
import org.springframework.boot.actuate.endpoint.web.annotation.EndpointWebExtension;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.http.ProblemDetail;

/**
 * The HTTP side of {@link ShardTenancyEndpoint}: the one-tenant read and the move answer a refusal with its status and
 * an RFC 9457 problem body ({@code application/problem+json}; {@code detail} is the reason, with the properties
 * {@code tenant} (only a valid tenant id is echoed; the reason quotes an invalid one, bounded), {@code targetShard},
 * {@code shard}, {@code directoryVersion}, {@code moveId} and {@code exception} where they apply):
 *
 * <ul>
 * <li>400: an invalid tenant id, a missing {@code targetShard}, an unknown (target) shard, or no {@code TenantMover}
 * bean;</li>
 * <li>404: a tenant the directory does not know (on a read: any tenant, when tenant ids are not shown);</li>
 * <li>409: a move the tenant's state refuses (it is moving, not ACTIVE, already on the target shard, the mover could
 * not start it), a create of a tenant that exists or that no shard fits, a delete of a tenant that is not ACTIVE;</li>
 * <li>503: the directory or a shard cannot be reached.</li>
 * </ul>
 *
 * <p>Whether tenant ids are shown is decided per request from its {@link SecurityContext}, as Spring Boot's
 * {@code env} endpoint decides whether values are shown: {@link Show#isShown(SecurityContext, java.util.Collection)}
 * with {@code management.endpoint.shardtenancy.show-values} and {@code management.endpoint.shardtenancy.roles}
 * ({@link Show#WHEN_AUTHORIZED}: an authenticated user with one of the roles, or any authenticated user without
 * roles). When they are not shown, the one-tenant read answers 404 with the same body for every valid id, known or
 * not (the id is not echoed), without reading the directory. Boot's {@code health} endpoint likewise answers 404 for
 * a component path when it does not show components, whether the component exists or not: a 200 with a sanitized
 * body for known tenants only would still tell which exist. The timeline's tenants are replaced by {@code ******}.
 * The overview is the endpoint's own and names no tenant. Thread-safe.
 *
 * @see <a href="https://www.rfc-editor.org/rfc/rfc9457">RFC 9457: Problem Details for HTTP APIs</a>
 */
@EndpointWebExtension(endpoint = ShardTenancyEndpoint.class)
public class ShardTenancyEndpointWebExtension {

	/** The detail of the 404 answered for every tenant when tenant ids are not shown. */
	static final String NOT_SHOWN = "Unknown tenant, or tenant details are not shown to this request "
			+ "(management.endpoint.shardtenancy.show-values)";

	private final ShardTenancyEndpoint delegate;

	private final Show showValues;

	private final Set<String> roles;

	/**
	 * An extension showing no tenant id ({@link Show#NEVER}).
	 * @param delegate the endpoint it answers for; never {@code null}
	 */
	public ShardTenancyEndpointWebExtension(ShardTenancyEndpoint delegate) {
		this(delegate, Show.NEVER, Set.of());
	}

	/**
	 * @param delegate the endpoint it answers for; never {@code null}
	 * @param showValues when tenant ids are shown ({@code management.endpoint.shardtenancy.show-values}); never
	 * {@code null}
	 * @param roles the roles that authorise a user with {@link Show#WHEN_AUTHORIZED}
	 * ({@code management.endpoint.shardtenancy.roles}); empty: every authenticated user; never {@code null}
	 */
	public ShardTenancyEndpointWebExtension(ShardTenancyEndpoint delegate, Show showValues, Set<String> roles) {
		this.delegate = Objects.requireNonNull(delegate, "delegate");
		this.showValues = Objects.requireNonNull(showValues, "showValues");
		this.roles = Set.copyOf(roles);
	}

	/**
	 * @param securityContext the request's security context, which decides whether tenant ids are shown
	 * @param tenant the tenant
	 * @return 200 with a {@link TenantDescriptor}; 400 (invalid tenant id), 404 (unknown tenant, or any tenant when
	 * tenant ids are not shown to this request) or 503 (directory unreachable) with a {@link ProblemDetail}; never
	 * {@code null}
	 */
	@ReadOperation
	public WebEndpointResponse<Object> tenant(SecurityContext securityContext, @Selector String tenant) {
		boolean shown = this.showValues.isShown(securityContext, this.roles);
		try {
			TenantDescriptor descriptor = this.delegate.tenant(tenant, shown);
			if (descriptor == null && !shown) {
				return problem(HttpStatus.NOT_FOUND, NOT_SHOWN, null, null, null);
			}
			if (descriptor == null) {
				return problem(HttpStatus.NOT_FOUND, "Unknown tenant '" + tenant + "': the directory has no entry "
						+ "for it and this instance has none cached", tenant, null, null);
			}
			return new WebEndpointResponse<>(descriptor);
		}
		catch (InvalidEndpointRequestException ex) {
			return problem(HttpStatus.BAD_REQUEST, ex.getReason(), tenant, null, null);
		}
		catch (ShardTenancyException ex) {
			return problem(status(ex), ex.getMessage(), tenant, null, ex);
		}
	}

	/**
	 * Serves the timeline, as {@link ShardTenancyEndpoint#timeline(String, int)} does.
	 * @param securityContext the request's security context, which decides whether tenant ids are shown
	 * @param timeline the word {@code timeline}
	 * @param seconds how many seconds back from now
	 * @return the timeline, its tenants replaced by {@code ******} when tenant ids are not shown to this request;
	 * never {@code null}
	 * @throws InvalidEndpointRequestException (HTTP 400) as {@link ShardTenancyEndpoint#timeline(String, int)}
	 */
	@ReadOperation
	public Timeline timeline(SecurityContext securityContext, @Selector String timeline, @Selector int seconds) {
		return this.delegate.timeline(timeline, seconds, this.showValues.isShown(securityContext, this.roles));
	}

	/**
	 * The pre-flight check of a move, as {@link ShardTenancyEndpoint#check(String, String, String)} answers it.
	 * @param securityContext the request's security context, which decides whether tenant ids are shown
	 * @param tenant the tenant
	 * @param check the word {@code check}
	 * @param targetShard the shard it would move to
	 * @return 200 with a {@link io.github.shardtenancy.MoveCheck}; 400 (invalid tenant id, unknown shard), 404
	 * (unknown tenant, or any tenant when tenant ids are not shown to this request) or 503 with a
	 * {@link ProblemDetail}; never {@code null}
	 */
	@ReadOperation
	public WebEndpointResponse<Object> check(SecurityContext securityContext, @Selector String tenant,
			@Selector String check, @Selector String targetShard) {
		boolean shown = this.showValues.isShown(securityContext, this.roles);
		try {
			Object body = this.delegate.check(tenant, check, targetShard, shown);
			if (body == null) {
				return problem(HttpStatus.NOT_FOUND, NOT_SHOWN, null, null, null);
			}
			return new WebEndpointResponse<>(body);
		}
		catch (InvalidEndpointRequestException ex) {
			return problem(HttpStatus.BAD_REQUEST, ex.getReason(), tenant, targetShard, null);
		}
		catch (ShardTenancyException ex) {
			return problem(status(ex), ex.getMessage(), tenant, targetShard, ex);
		}
	}

	/**
	 * Starts an online move, as {@link ShardTenancyEndpoint#move(String, String)} does.
	 * @param tenant the tenant to move
	 * @param targetShard the shard to move it to
	 * @return 200 with a {@link MoveDescriptor}; or 400, 404, 409, 503 with a {@link ProblemDetail} (see the class
	 * comment); never {@code null}
	 */
	@WriteOperation
	public WebEndpointResponse<Object> move(@Selector String tenant, @Nullable String targetShard) {
		try {
			return new WebEndpointResponse<>(this.delegate.move(tenant, targetShard));
		}
		catch (InvalidEndpointRequestException ex) {
			return problem(HttpStatus.BAD_REQUEST, ex.getReason(), tenant, targetShard, null);
		}
		catch (ShardTenancyException ex) {
			return problem(status(ex), ex.getMessage(), tenant, targetShard, ex);
		}
	}

	/**
	 * Creates a tenant, as {@link ShardTenancyEndpoint#create(String, String, String)} does.
	 * @param tenant the new tenant
	 * @param create the word {@code create}
	 * @param shard the shard to create it on, or {@code null} for the placement policy's choice
	 * @return 200 with its {@link ShardTenancyEndpoint.EntryDescriptor}; or 400 (invalid id, unknown shard), 409 (the
	 * tenant exists, no shard fits, the seed failed), 503 with a {@link ProblemDetail}; never {@code null}
	 */
	@WriteOperation
	public WebEndpointResponse<Object> create(@Selector String tenant, @Selector String create,
			@Nullable String shard) {
		try {
			return new WebEndpointResponse<>(this.delegate.create(tenant, create, shard));
		}
		catch (InvalidEndpointRequestException ex) {
			return problem(HttpStatus.BAD_REQUEST, ex.getReason(), tenant, null, null);
		}
		catch (ShardTenancyException ex) {
			return problem(status(ex), ex.getMessage(), tenant, null, ex);
		}
	}

	/**
	 * Deletes a tenant, as {@link ShardTenancyEndpoint#delete(String)} does.
	 * @param tenant the tenant
	 * @return 200 with its DELETED {@link ShardTenancyEndpoint.EntryDescriptor}; or 400, 404 (unknown tenant), 409
	 * (not ACTIVE), 503 with a {@link ProblemDetail}; never {@code null}
	 */
	@DeleteOperation
	public WebEndpointResponse<Object> delete(@Selector String tenant) {
		try {
			return new WebEndpointResponse<>(this.delegate.delete(tenant));
		}
		catch (InvalidEndpointRequestException ex) {
			return problem(HttpStatus.BAD_REQUEST, ex.getReason(), tenant, null, null);
		}
		catch (ShardTenancyException ex) {
			return problem(status(ex), ex.getMessage(), tenant, null, ex);
		}
	}

	private static HttpStatus status(ShardTenancyException ex) {
		if (ex instanceof UnknownTenantException) {
			return HttpStatus.NOT_FOUND;
		}
		if (ex instanceof UnknownShardException) {
			return HttpStatus.BAD_REQUEST;
		}
		if (ex instanceof DirectoryUnavailableException || ex instanceof ShardUnavailableException) {
			return HttpStatus.SERVICE_UNAVAILABLE;
		}
		return HttpStatus.CONFLICT;
	}

	private static WebEndpointResponse<Object> problem(HttpStatus status, @Nullable String detail,
			@Nullable String tenant, @Nullable String targetShard, @Nullable ShardTenancyException failure) {
		ProblemDetail problem = ProblemDetail.forStatusAndDetail(status, detail);
		problem.setTitle(status.getReasonPhrase());
		if (tenant != null && TenantIds.isValid(tenant)) {
			problem.setProperty("tenant", tenant);
		}
		if (targetShard != null) {
			problem.setProperty("targetShard", targetShard);
		}
		if (failure != null) {
			problem.setProperty("exception", failure.getClass().getSimpleName());
			if (failure.shardId() != null) {
				problem.setProperty("shard", failure.shardId());
			}
			if (failure.directoryVersion() >= 0) {
				problem.setProperty("directoryVersion", failure.directoryVersion());
			}
			if (failure instanceof MoveInProgressException inProgress && inProgress.moveId() != null) {
				problem.setProperty("moveId", inProgress.moveId());
			}
		}
		return new WebEndpointResponse<>(problem, status.value(), MediaType.APPLICATION_PROBLEM_JSON);
	}

}
