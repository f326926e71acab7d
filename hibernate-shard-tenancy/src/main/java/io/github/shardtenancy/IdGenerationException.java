package io.github.shardtenancy;

/**
 * A {@link ShardSafeId} identifier could not be generated without risking a duplicate: this instance holds no valid
 * generator lease (the directory could not be reached to renew it before it expired, or another instance took it
 * over), the clock moved backwards by more than the tolerated step, every generator id is leased, or the epoch's
 * range is exhausted; for {@code Integer} ids, the directory's counter reached {@link Integer#MAX_VALUE}, or a new
 * block of ids was needed and the directory could not be reached. Nothing was written; the transaction may be retried once the cause is gone (a lost lease is
 * taken again in the background as soon as the directory answers).
 */
public class IdGenerationException extends ShardTenancyException {

	/**
	 * @param message what failed, naming the generator id when there is one
	 * @param cause the underlying failure, or {@code null}
	 */
	public IdGenerationException(String message, Throwable cause) {
		super(message, null, null, -1, cause);
	}

}
