package io.github.shardtenancy.boot.web;

import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.Objects;

import io.github.shardtenancy.DirectoryConflictException;
import io.github.shardtenancy.DirectoryUnavailableException;
import io.github.shardtenancy.IdGenerationException;
import io.github.shardtenancy.InvalidTenantIdException;
import io.github.shardtenancy.MoveInProgressException;
import io.github.shardtenancy.NoTenantBoundException;
import io.github.shardtenancy.RetriesExhaustedException;
import io.github.shardtenancy.ShardConnectionLostException;
import io.github.shardtenancy.ShardTenancyException;
import io.github.shardtenancy.ShardUnavailableException;
import io.github.shardtenancy.TenantAlreadyExistsException;
import io.github.shardtenancy.TenantDeletedException;
import io.github.shardtenancy.TenantUnavailableException;
import io.github.shardtenancy.UnknownTenantException;
import org.jspecify.annotations.Nullable;
import org.springframework.core.Ordered;
import org.springframework.core.annotation.Order;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.http.ProblemDetail;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.RestControllerAdvice;

/**
 * Answers the library's typed errors with RFC 9457 problem details
 * (<a href="https://www.rfc-editor.org/rfc/rfc9457">RFC 9457</a>, Spring's {@link ProblemDetail}):
 * <ul>
 * <li>{@link InvalidTenantIdException}, {@link NoTenantBoundException}: 400 Bad Request;</li>
 * <li>{@link UnknownTenantException}, {@link TenantDeletedException}: 404 Not Found;</li>
 * <li>{@link DirectoryConflictException} (a tenant that already exists, an entry changed since it was read),
 * {@link MoveInProgressException}: 409 Conflict;</li>
 * <li>{@link RetriesExhaustedException}, {@link TenantUnavailableException}, {@link ShardUnavailableException},
 * {@link ShardConnectionLostException}, {@link DirectoryUnavailableException}, {@link IdGenerationException}: 503
 * Service Unavailable with a {@code Retry-After} header in whole seconds.</li>
 * </ul>
 * Each problem has a {@code type} ({@code urn:shard-tenancy:} and the exception's simple name), a {@code title}, the
 * exception message as {@code detail}, and the properties {@code tenant}, {@code shard} and
 * {@code directoryVersion} where the exception knows them. A typed error wrapped by Spring or JPA is found in the
 * cause chain (Spring's {@code ExceptionHandlerExceptionResolver} matches causes). Any other
 * {@link ShardTenancyException} is rethrown unchanged, so that Spring Boot's usual error handling answers it: among
 * them the reference-data and seeding errors, whose remedy is an operator's (a repair, a re-seed), never a client's
 * retry ({@code ReferenceDataBehindException} in particular reports a write that is recorded and must not be sent
 * again).
 *
 * <p>Ordered last ({@link Ordered#LOWEST_PRECEDENCE}) and registered after the application's own beans, so an
 * {@code @ExceptionHandler} of the application for the same exception (in a controller or in any
 * {@code @ControllerAdvice}) wins. Switched off with {@code shard-tenancy.web.problem-details.enabled=false};
 * replaced by defining a bean of this type. Subclasses may override {@link #statusOf(ShardTenancyException)} and
 * {@link #problemOf(ShardTenancyException, HttpStatus)}. Stateless and thread-safe.
 */
@RestControllerAdvice
@Order(Ordered.LOWEST_PRECEDENCE)
public class ShardTenancyProblemDetails {

	private static final List<Mapping> MAPPINGS = List.of(
			new Mapping(InvalidTenantIdException.class, HttpStatus.BAD_REQUEST, "Invalid tenant id"),
			new Mapping(NoTenantBoundException.class, HttpStatus.BAD_REQUEST, "No tenant"),
			new Mapping(UnknownTenantException.class, HttpStatus.NOT_FOUND, "Unknown tenant"),
			new Mapping(TenantDeletedException.class, HttpStatus.NOT_FOUND, "Tenant deleted"),
			new Mapping(TenantAlreadyExistsException.class, HttpStatus.CONFLICT, "Tenant exists"),
			new Mapping(DirectoryConflictException.class, HttpStatus.CONFLICT, "Directory conflict"),
			new Mapping(MoveInProgressException.class, HttpStatus.CONFLICT, "Move in progress"),
			new Mapping(RetriesExhaustedException.class, HttpStatus.SERVICE_UNAVAILABLE, "Retries exhausted"),
			new Mapping(TenantUnavailableException.class, HttpStatus.SERVICE_UNAVAILABLE, "Tenant unavailable"),
			new Mapping(ShardUnavailableException.class, HttpStatus.SERVICE_UNAVAILABLE, "Shard unavailable"),
			new Mapping(ShardConnectionLostException.class, HttpStatus.SERVICE_UNAVAILABLE, "Shard unavailable"),
			new Mapping(DirectoryUnavailableException.class, HttpStatus.SERVICE_UNAVAILABLE, "Directory unavailable"),
			new Mapping(IdGenerationException.class, HttpStatus.SERVICE_UNAVAILABLE, "Ids unavailable"));

	private final String retryAfterSeconds;

	private final @Nullable String tenantHeader;

	/**
	 * @param retryAfter how long a client should wait before retrying a 503; sent rounded up to whole seconds, at
	 * least 1; never {@code null}
	 * @param tenantHeader the request header the application takes the tenant from, named in the detail of a
	 * missing tenant; {@code null} when the tenant does not come from a header
	 * @throws IllegalArgumentException if {@code retryAfter} is negative
	 */
	public ShardTenancyProblemDetails(Duration retryAfter, @Nullable String tenantHeader) {
		Objects.requireNonNull(retryAfter, "retryAfter");
		if (retryAfter.isNegative()) {
			throw new IllegalArgumentException("retryAfter must not be negative, was " + retryAfter);
		}
		long seconds = retryAfter.getSeconds() + ((retryAfter.getNano() > 0) ? 1 : 0);
		this.retryAfterSeconds = Long.toString(Math.max(1, seconds));
		this.tenantHeader = tenantHeader;
	}

	/** @return the {@code Retry-After} value sent with a 503, in whole seconds */
	public String retryAfterSeconds() {
		return this.retryAfterSeconds;
	}

	/**
	 * Answers a typed error of the library.
	 * @param ex the error, or the typed cause of a wrapped one
	 * @return the problem detail with its status and, for 503, the {@code Retry-After} header
	 * @throws ShardTenancyException {@code ex} itself when {@link #statusOf} maps it to no status
	 */
	@ExceptionHandler(ShardTenancyException.class)
	public ResponseEntity<ProblemDetail> handleShardTenancyException(ShardTenancyException ex) {
		HttpStatus status = statusOf(ex);
		if (status == null) {
			throw ex;
		}
		ResponseEntity.BodyBuilder response = ResponseEntity.status(status);
		if (status == HttpStatus.SERVICE_UNAVAILABLE) {
			response.header(HttpHeaders.RETRY_AFTER, this.retryAfterSeconds);
		}
		return response.body(problemOf(ex, status));
	}

	/**
	 * @param ex a typed error of the library
	 * @return the status that answers it, or {@code null} to leave it to the application's other error handling
	 */
	protected @Nullable HttpStatus statusOf(ShardTenancyException ex) {
		Mapping mapping = mappingOf(ex);
		return (mapping != null) ? mapping.status() : null;
	}

	/**
	 * @param ex a typed error of the library
	 * @param status the status {@link #statusOf} chose
	 * @return the problem detail to send, never {@code null}
	 */
	protected ProblemDetail problemOf(ShardTenancyException ex, HttpStatus status) {
		String detail = ex.getMessage();
		if (ex instanceof NoTenantBoundException && this.tenantHeader != null) {
			detail = detail + "; send the tenant id in the " + this.tenantHeader + " request header";
		}
		ProblemDetail problem = ProblemDetail.forStatusAndDetail(status, detail);
		problem.setType(URI.create("urn:shard-tenancy:" + ex.getClass().getSimpleName()));
		problem.setTitle(titleOf(ex, status));
		if (ex.tenantId() != null) {
			problem.setProperty("tenant", ex.tenantId());
		}
		if (ex.shardId() != null) {
			problem.setProperty("shard", ex.shardId());
		}
		if (ex.directoryVersion() >= 0) {
			problem.setProperty("directoryVersion", ex.directoryVersion());
		}
		return problem;
	}

	private static String titleOf(ShardTenancyException ex, HttpStatus status) {
		Mapping mapping = mappingOf(ex);
		return (mapping != null) ? mapping.title() : status.getReasonPhrase();
	}

	private static @Nullable Mapping mappingOf(ShardTenancyException ex) {
		for (Mapping mapping : MAPPINGS) {
			if (mapping.type().isInstance(ex)) {
				return mapping;
			}
		}
		return null;
	}

	/** A typed error's status and title; the first mapping whose type matches wins (subclasses first). */
	private record Mapping(Class<? extends ShardTenancyException> type, HttpStatus status, String title) {

	}

}
