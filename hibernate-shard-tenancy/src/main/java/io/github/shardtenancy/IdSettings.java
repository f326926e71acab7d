package io.github.shardtenancy;

import java.time.Duration;
import java.time.Instant;
import java.util.Objects;

/**
 * The settings of {@link ShardSafeId} identifiers.
 *
 * <p>Layout of an id (a positive {@code long}): bit 63 is 0; the next {@value #TIMESTAMP_BITS} bits are the
 * milliseconds since {@link #epoch()}; then {@value #GENERATOR_BITS} bits of generator id (leased from the directory,
 * so at most {@value #MAX_GENERATORS} instances generate at once); then {@value #SEQUENCE_BITS} bits of sequence
 * ({@value #IDS_PER_MILLISECOND} ids per millisecond per instance, about 4 million per second; the next id waits for
 * the next millisecond when they run out). The timestamp lasts 2<sup>41</sup> ms, about 69 years after the epoch.
 * Ids grow with time, so B-tree indexes stay compact. Every id generated at time {@code t} is at least
 * {@code (t - epoch) << 22}: with the default epoch (2024-01-01T00:00:00Z) ids generated from 2025 onwards exceed
 * 1.3&times;10<sup>17</sup>, far above the ids a table's {@code IDENTITY} or sequence handed out, so existing rows keep
 * theirs. They exceed 2<sup>53</sup>: JavaScript clients must read them as strings.
 *
 * @param epoch the instant of timestamp 0; never {@code null}; ids cannot be generated before it, and run out 69 years
 * after it ({@link IdGenerationException}). Every instance on the same directory must use the same epoch, and it
 * must never change once ids were generated (earlier ids could then be generated again): the directory records the
 * epoch of every lease, and an instance with another one is refused at start with {@link IdGenerationException}
 * @param lease how long a generator lease lasts without renewal (renewed every third of it); positive
 * @param maxClockBackwards how far the clock may step back (NTP adjustments) before the generator refuses; the
 * generator waits for the clock to catch up with its last id up to this long; not negative
 * @param integerBlockSize how many {@code Integer} ids an instance leases from a table's counter in the directory in one
 * round trip (see {@link ShardSafeId}); positive. Larger blocks mean fewer round trips, and more ids skipped when an
 * instance stops with part of its block unused
 */
public record IdSettings(Instant epoch, Duration lease, Duration maxClockBackwards, int integerBlockSize) {

	/** The default {@link #integerBlockSize()}. */
	public static final int DEFAULT_INTEGER_BLOCK_SIZE = 100;

	/** Bits of milliseconds since the epoch. */
	public static final int TIMESTAMP_BITS = 41;

	/** Bits of generator id. */
	public static final int GENERATOR_BITS = 10;

	/** Bits of sequence within a millisecond. */
	public static final int SEQUENCE_BITS = 12;

	/** How many instances may hold a generator id at once. */
	public static final int MAX_GENERATORS = 1 << GENERATOR_BITS;

	/** How many ids one instance generates per millisecond. */
	public static final int IDS_PER_MILLISECOND = 1 << SEQUENCE_BITS;

	/** The default epoch: 2024-01-01T00:00:00Z. */
	public static final Instant DEFAULT_EPOCH = Instant.parse("2024-01-01T00:00:00Z");

	/**
	 * @throws NullPointerException if an argument is {@code null}
	 * @throws IllegalArgumentException if the lease is not positive, {@code maxClockBackwards} is negative or
	 * {@code integerBlockSize} is not positive
	 */
	public IdSettings {
		Objects.requireNonNull(epoch, "epoch");
		Objects.requireNonNull(lease, "lease");
		Objects.requireNonNull(maxClockBackwards, "maxClockBackwards");
		if (lease.isZero() || lease.isNegative()) {
			throw new IllegalArgumentException("lease must be positive: " + lease);
		}
		if (maxClockBackwards.isNegative()) {
			throw new IllegalArgumentException("maxClockBackwards must not be negative: " + maxClockBackwards);
		}
		if (integerBlockSize < 1) {
			throw new IllegalArgumentException("integerBlockSize must be positive: " + integerBlockSize);
		}
	}

	/**
	 * Settings with the {@link #DEFAULT_INTEGER_BLOCK_SIZE default Integer block size}.
	 * @param epoch see {@link #epoch()}
	 * @param lease see {@link #lease()}
	 * @param maxClockBackwards see {@link #maxClockBackwards()}
	 * @throws NullPointerException if an argument is {@code null}
	 * @throws IllegalArgumentException if the lease is not positive or {@code maxClockBackwards} is negative
	 */
	public IdSettings(Instant epoch, Duration lease, Duration maxClockBackwards) {
		this(epoch, lease, maxClockBackwards, DEFAULT_INTEGER_BLOCK_SIZE);
	}

	/**
	 * @return the epoch 2024-01-01T00:00:00Z, a lease of 60 seconds, a clock step back of up to 1 second and blocks of
	 * {@value #DEFAULT_INTEGER_BLOCK_SIZE} Integer ids
	 */
	public static IdSettings defaults() {
		return new IdSettings(DEFAULT_EPOCH, Duration.ofSeconds(60), Duration.ofSeconds(1));
	}

	/**
	 * @param id an id generated with these settings
	 * @return the instant it was generated at (millisecond precision)
	 */
	public Instant timestampOf(long id) {
		return this.epoch.plusMillis(id >>> (GENERATOR_BITS + SEQUENCE_BITS));
	}

	/**
	 * @param id an id generated with {@link ShardSafeId}
	 * @return the generator id that generated it, 0 to {@value #MAX_GENERATORS} - 1
	 */
	public static int generatorOf(long id) {
		return (int) ((id >>> SEQUENCE_BITS) & (MAX_GENERATORS - 1));
	}

}
