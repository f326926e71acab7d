package io.github.shardtenancy.boot.web;

import java.net.URI;
import java.time.Duration;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Objects;
import java.util.Set;

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
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.core.Ordered;
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
 * {@code directoryVersion} where the exception knows them. A typed error wrapped by Spring or JPA (a
 * {@code DataAccessException}, a {@code CannotCreateTransactionException}) is found in the cause chain, as Spring's
 * {@code ExceptionHandlerExceptionResolver} matches causes.
 *
 * <p>The advice declares {@code @ExceptionHandler} methods for the exception types above only, so it never matches
 * any other exception: those, and the other {@link ShardTenancyException}s, reach the application's own handlers
 * (a catch-all {@code @ExceptionHandler(Exception.class)} included) or Spring Boot's usual error handling. Among
 * them are the reference-data and seeding errors, whose remedy is an operator's (a repair, a re-seed), never a
 * client's retry ({@code ReferenceDataBehindException} in particular reports a write that is recorded and must not
 * be sent again).
 *
 * <p>Precedence. Spring MVC first tries the {@code @ExceptionHandler} methods of the controller that threw, then
 * the {@code @ControllerAdvice} beans in their order, and takes the first advice that declares a handler for the
 * exception or one of its causes (an earlier advice's catch-all wins over a later advice's exact type). This advice
 * is ordered {@link #ORDER}, ahead of advices of the default order ({@link Ordered#LOWEST_PRECEDENCE}), so for the
 * types above:
 * <ol>
 * <li>an {@code @ExceptionHandler} in the controller itself wins;</li>
 * <li>then an advice of the application ordered before {@link #ORDER} (for example
 * {@code @Order(Ordered.HIGHEST_PRECEDENCE)}), which should handle the library's types only, as any catch-all of
 * its own would also win;</li>
 * <li>then this advice; the application's other advices, also those naming the same type, are not asked.</li>
 * </ol>
 * Switched off with {@code shard-tenancy.web.problem-details.enabled=false}; replaced by defining a bean of this
 * type. Subclasses may override {@link #statusOf(ShardTenancyException)},
 * {@link #problemOf(ShardTenancyException, HttpStatus)} and {@link #getOrder()}. Stateless and thread-safe.
 */
@RestControllerAdvice
public class ShardTenancyProblemDetails implements Ordered {

	private static final Logger log = LoggerFactory.getLogger(ShardTenancyProblemDetails.class);

	/**
	 * The order of this advice: {@code Ordered.HIGHEST_PRECEDENCE + 1000}, ahead of the advices of the default order
	 * and of Spring Boot's {@code ProblemDetailsExceptionHandler} (order 0), leaving room for an application's advice
	 * to go first.
	 */
	public static final int ORDER = Ordered.HIGHEST_PRECEDENCE + 1000;

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

	/** @return {@link #ORDER} */
	@Override
	public int getOrder() {
		return ORDER;
	}

	/**
	 * Answers a typed error of the library. Spring calls it only for the exception types it names, thrown or found
	 * in the cause chain (keep them in step with the mappings).
	 * @param ex the exception thrown by the handler, the typed error itself or a wrapper of it
	 * @return the problem detail with its status and, for 503, the {@code Retry-After} header
	 * @throws Exception {@code ex} itself when {@link #statusOf} maps the typed error to no status: then Spring Boot's
	 * usual error handling answers it (the advices ordered after this one are not asked)
	 */
	@ExceptionHandler({ InvalidTenantIdException.class, NoTenantBoundException.class, UnknownTenantException.class,
			TenantDeletedException.class, DirectoryConflictException.class, MoveInProgressException.class,
			RetriesExhaustedException.class, TenantUnavailableException.class, ShardUnavailableException.class,
			ShardConnectionLostException.class, DirectoryUnavailableException.class, IdGenerationException.class })
	public ResponseEntity<ProblemDetail> handleShardTenancyException(Exception ex) throws Exception {
		@Nullable ShardTenancyException error = mappedErrorIn(ex);
		@Nullable HttpStatus status = (error != null) ? statusOf(error) : null;
		if (error == null || status == null) {
			throw ex;
		}
		ResponseEntity.BodyBuilder response = ResponseEntity.status(status);
		if (status == HttpStatus.SERVICE_UNAVAILABLE) {
			response.header(HttpHeaders.RETRY_AFTER, this.retryAfterSeconds);
		}
		return response.body(problemOf(error, status));
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
		if (ex instanceof NoTenantBoundException) {
			// Its message names the server's thread and the work that needed a tenant, a statement's SQL included:
			// for the server's log, not for the HTTP client.
			log.debug("No tenant bound for a request: {}", detail);
			detail = "No tenant is bound for this request"
					+ ((this.tenantHeader != null) ? "; send the tenant id in the " + this.tenantHeader
							+ " request header" : "");
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

	/**
	 * @param ex a thrown exception
	 * @return the first exception of its cause chain (itself first) that a mapping names, as Spring matched it, or
	 * {@code null}
	 */
	private static @Nullable ShardTenancyException mappedErrorIn(Throwable ex) {
		Set<Throwable> seen = Collections.newSetFromMap(new IdentityHashMap<>());
		for (Throwable t = ex; t != null && seen.add(t); t = t.getCause()) {
			if (t instanceof ShardTenancyException error && mappingOf(error) != null) {
				return error;
			}
		}
		return null;
	}

	/** @return the exception types the mappings name, in their order (for the test that they match the handler) */
	static List<Class<? extends ShardTenancyException>> mappedTypes() {
		return MAPPINGS.stream().<Class<? extends ShardTenancyException>>map(Mapping::type).toList();
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
