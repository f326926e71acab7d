package io.github.shardtenancy.sample.web;

import io.github.shardtenancy.sample.orders.InvalidOrderException;
import org.springframework.dao.DataIntegrityViolationException;
import org.springframework.http.HttpStatus;
import org.springframework.http.ProblemDetail;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.ResponseStatus;
import org.springframework.web.bind.annotation.RestControllerAdvice;

/**
 * The sample's own errors as HTTP answers (RFC 9457 problem details). The library's typed errors (no tenant,
 * invalid or unknown tenant, shard or directory unavailable, retries exhausted) are answered by the starter's
 * {@code ShardTenancyProblemDetails}.
 */
@RestControllerAdvice
public class ApiErrors {

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
	 * @param ex a unique or foreign-key violation
	 * @return HTTP 409
	 */
	@ExceptionHandler(DataIntegrityViolationException.class)
	@ResponseStatus(HttpStatus.CONFLICT)
	public ProblemDetail conflict(DataIntegrityViolationException ex) {
		return ProblemDetail.forStatusAndDetail(HttpStatus.CONFLICT, "The request conflicts with existing data");
	}

}
