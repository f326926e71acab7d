package io.github.shardtenancy.sample.web;

import java.net.URI;

import io.github.shardtenancy.DirectoryUnavailableException;
import io.github.shardtenancy.InvalidTenantIdException;
import io.github.shardtenancy.NoTenantBoundException;
import io.github.shardtenancy.RetriesExhaustedException;
import io.github.shardtenancy.ShardTenancyException;
import io.github.shardtenancy.TenantUnavailableException;
import io.github.shardtenancy.UnknownTenantException;
import io.github.shardtenancy.sample.orders.InvalidOrderException;
import jakarta.persistence.PersistenceException;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.dao.DataAccessException;
import org.springframework.dao.DataIntegrityViolationException;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.http.ProblemDetail;
import org.springframework.http.ResponseEntity;
import org.springframework.transaction.TransactionException;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.RestControllerAdvice;

/**
 * Turns the library's typed errors into HTTP answers (RFC 9457 problem details), with the tenant, shard and directory
 * version when known:
 * <ul>
 * <li>{@link UnknownTenantException}: 404;</li>
 * <li>{@link InvalidTenantIdException}, {@link NoTenantBoundException}, {@link InvalidOrderException}: 400;</li>
 * <li>{@link TenantUnavailableException}, {@link DirectoryUnavailableException}, {@link RetriesExhaustedException}:
 * 503 with {@code Retry-After: 1};</li>
 * <li>any other {@link ShardTenancyException}: 500.</li>
 * </ul>
 * The retry layer normally hands the typed exception itself to the caller; should one arrive wrapped by Spring or JPA
 * (for example when retry is switched off), its cause chain is searched for it.
 */
@RestControllerAdvice
public class ApiErrors {

	private final String tenantHeader;

	/** @param tenantHeader the request header that names the tenant */
	public ApiErrors(@Value("${shard-tenancy.web.header-name:X-Tenant-Id}") String tenantHeader) {
		this.tenantHeader = tenantHeader;
	}

	/**
	 * @param ex a typed error of the library
	 * @return the problem detail with the matching status
	 */
	@ExceptionHandler(ShardTenancyException.class)
	public ResponseEntity<ProblemDetail> shardTenancy(ShardTenancyException ex) {
		HttpStatus status = statusOf(ex);
		ProblemDetail problem = ProblemDetail.forStatusAndDetail(status, detailOf(ex));
		problem.setTitle(ex.getClass().getSimpleName());
		problem.setType(URI.create("urn:shard-tenancy:" + ex.getClass().getSimpleName()));
		if (ex.tenantId() != null) {
			problem.setProperty("tenant", ex.tenantId());
		}
		if (ex.shardId() != null) {
			problem.setProperty("shard", ex.shardId());
		}
		if (ex.directoryVersion() >= 0) {
			problem.setProperty("directoryVersion", ex.directoryVersion());
		}
		ResponseEntity.BodyBuilder response = ResponseEntity.status(status);
		if (status == HttpStatus.SERVICE_UNAVAILABLE) {
			response.header(HttpHeaders.RETRY_AFTER, "1");
		}
		return response.body(problem);
	}

	/**
	 * @param ex an order request that cannot be served as given
	 * @return HTTP 400
	 */
	@ExceptionHandler(InvalidOrderException.class)
	public ProblemDetail invalidOrder(InvalidOrderException ex) {
		ProblemDetail problem = ProblemDetail.forStatusAndDetail(HttpStatus.BAD_REQUEST, ex.getMessage());
		problem.setTitle("Invalid order");
		return problem;
	}

	/**
	 * Unwraps a typed error that reached the controller inside a Spring or JPA exception.
	 * @param ex the wrapper
	 * @return the answer for the typed error inside, or HTTP 409 for a unique or foreign-key violation
	 * @throws Exception the wrapper itself when it holds neither, so that Spring answers it as usual
	 */
	@ExceptionHandler({ DataAccessException.class, TransactionException.class, PersistenceException.class })
	public ResponseEntity<ProblemDetail> wrapped(Exception ex) throws Exception {
		for (Throwable t = ex; t != null; t = (t.getCause() == t ? null : t.getCause())) {
			if (t instanceof ShardTenancyException typed) {
				return shardTenancy(typed);
			}
		}
		if (ex instanceof DataIntegrityViolationException) {
			return ResponseEntity.status(HttpStatus.CONFLICT)
				.body(ProblemDetail.forStatusAndDetail(HttpStatus.CONFLICT, "The request conflicts with existing data"));
		}
		throw ex;
	}

	private String detailOf(ShardTenancyException ex) {
		if (ex instanceof NoTenantBoundException) {
			return "No tenant: send the tenant id in the " + this.tenantHeader + " header";
		}
		return ex.getMessage();
	}

	private static HttpStatus statusOf(ShardTenancyException ex) {
		if (ex instanceof UnknownTenantException) {
			return HttpStatus.NOT_FOUND;
		}
		if (ex instanceof InvalidTenantIdException || ex instanceof NoTenantBoundException) {
			return HttpStatus.BAD_REQUEST;
		}
		if (ex instanceof TenantUnavailableException || ex instanceof DirectoryUnavailableException
				|| ex instanceof RetriesExhaustedException) {
			return HttpStatus.SERVICE_UNAVAILABLE;
		}
		return HttpStatus.INTERNAL_SERVER_ERROR;
	}

}
