package io.github.shardtenancy.sample.orders;

/**
 * A request to place an order that cannot be served as given (blank product, quantity below 1, no customer). The web
 * layer answers it with HTTP 400.
 */
public class InvalidOrderException extends RuntimeException {

	/** @param message what is wrong with the request */
	public InvalidOrderException(String message) {
		super(message);
	}

}
