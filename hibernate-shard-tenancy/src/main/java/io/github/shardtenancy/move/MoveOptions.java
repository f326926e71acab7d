package io.github.shardtenancy.move;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * How one online move runs. Immutable and thread-safe; stored with the move in the move log, so a resumed move runs
 * with the options it was started with.
 *
 * @param batchSize rows per copy batch and change-log entries per catch-up batch, {@code >= 1}
 * @param throttle pause after every copy and catch-up batch, to spare the source; {@link Duration#ZERO} for none
 * @param catchUpLagThreshold change-log entries (rows) left after a catch-up round below or at which the move freezes
 * the tenant, {@code >= 0}; the freeze window grows with it
 * @param maxCatchUpRounds catch-up rounds before the move freezes the tenant whatever the lag, {@code >= 1}
 * @param cleanDelay how long the source rows are kept after the flip; {@link Duration#ZERO} cleans at once, otherwise
 * {@link OnlineMover#resume(String)} or {@link OnlineMover#clean(String)} cleans later. The delay is the safety period
 * after the flip: a transaction that began on the source before the flip (a FROZEN
 * fence admits reads) and runs its statements after it finds the rows still there, so its writes are rejected by
 * the fence and retried instead of matching no row. With zero, such a transaction can read nothing or update zero
 * rows; use zero only when no transaction of the tenant can be in flight (tests, maintenance)
 */
public record MoveOptions(int batchSize, Duration throttle, long catchUpLagThreshold, int maxCatchUpRounds,
		Duration cleanDelay) {

	/** @throws IllegalArgumentException if a value is out of range; {@link NullPointerException} for a null duration */
	public MoveOptions {
		Objects.requireNonNull(throttle, "throttle");
		Objects.requireNonNull(cleanDelay, "cleanDelay");
		if (batchSize < 1 || catchUpLagThreshold < 0 || maxCatchUpRounds < 1 || throttle.isNegative()
				|| cleanDelay.isNegative()) {
			throw new IllegalArgumentException("Invalid move options: " + this);
		}
	}

	/**
	 * @return batches of 10,000 rows (a batch only bounds a target transaction and paces the throttle: an interrupted
	 * copy starts over anyway, and fewer commits copy faster), no throttle, freeze at 20 rows of lag or less (or after 20 catch-up rounds), clean
	 * at once. The small lag keeps the final catch-up, inside the freeze, short: rounds get shorter as the lag
	 * shrinks, so they converge on what the tenant writes during one short round.
	 */
	public static MoveOptions defaults() {
		return new MoveOptions(10_000, Duration.ZERO, 20, 20, Duration.ZERO);
	}

	/** @param value rows per batch @return a copy with that batch size */
	public MoveOptions withBatchSize(int value) {
		return new MoveOptions(value, this.throttle, this.catchUpLagThreshold, this.maxCatchUpRounds, this.cleanDelay);
	}

	/** @param value pause after each batch @return a copy with that throttle */
	public MoveOptions withThrottle(Duration value) {
		return new MoveOptions(this.batchSize, value, this.catchUpLagThreshold, this.maxCatchUpRounds, this.cleanDelay);
	}

	/** @param value lag in rows @return a copy with that catch-up threshold */
	public MoveOptions withCatchUpLagThreshold(long value) {
		return new MoveOptions(this.batchSize, this.throttle, value, this.maxCatchUpRounds, this.cleanDelay);
	}

	/** @param value rounds @return a copy with that many catch-up rounds at most */
	public MoveOptions withMaxCatchUpRounds(int value) {
		return new MoveOptions(this.batchSize, this.throttle, this.catchUpLagThreshold, value, this.cleanDelay);
	}

	/** @param value delay before the source rows are removed @return a copy with that clean delay */
	public MoveOptions withCleanDelay(Duration value) {
		return new MoveOptions(this.batchSize, this.throttle, this.catchUpLagThreshold, this.maxCatchUpRounds, value);
	}

	/** @return the options as stored in the move log ({@code key=value;...}) */
	String encode() {
		return "batchSize=" + this.batchSize + ";throttleMs=" + this.throttle.toMillis() + ";catchUpLagThreshold="
				+ this.catchUpLagThreshold + ";maxCatchUpRounds=" + this.maxCatchUpRounds + ";cleanDelayMs="
				+ this.cleanDelay.toMillis();
	}

	/** @param encoded as written by {@link #encode()} @return the options; missing keys take the defaults */
	static MoveOptions decode(String encoded) {
		Map<String, String> values = new LinkedHashMap<>();
		for (String pair : encoded.split(";")) {
			int eq = pair.indexOf('=');
			if (eq > 0) {
				values.put(pair.substring(0, eq), pair.substring(eq + 1));
			}
		}
		MoveOptions d = defaults();
		return new MoveOptions(Integer.parseInt(values.getOrDefault("batchSize", "" + d.batchSize)),
				Duration.ofMillis(Long.parseLong(values.getOrDefault("throttleMs", "0"))),
				Long.parseLong(values.getOrDefault("catchUpLagThreshold", "" + d.catchUpLagThreshold)),
				Integer.parseInt(values.getOrDefault("maxCatchUpRounds", "" + d.maxCatchUpRounds)),
				Duration.ofMillis(Long.parseLong(values.getOrDefault("cleanDelayMs", "0"))));
	}

}
