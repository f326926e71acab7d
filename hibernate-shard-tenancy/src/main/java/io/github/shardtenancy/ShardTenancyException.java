package io.github.shardtenancy;

/**
 * Root of the library's unchecked exception hierarchy. Every error the library raises on purpose is a subclass, so
 * an application can catch this one type at its edge.
 *
 * <p>Where they are known, the exception carries the tenant, the shard and the directory version involved; each is
 * {@code null} (or {@code -1} for the version) when it does not apply. The message always names the ones that are
 * known. Instances are immutable and safe to share between threads.
 */
public class ShardTenancyException extends RuntimeException {

	private final String tenantId;

	private final String shardId;

	private final long directoryVersion;

	/**
	 * @param message human-readable description, never {@code null}
	 * @param tenantId the tenant concerned, or {@code null}
	 * @param shardId the logical shard concerned, or {@code null}
	 * @param directoryVersion the directory version concerned, or {@code -1} when none applies
	 * @param cause the underlying failure, or {@code null}
	 */
	public ShardTenancyException(String message, String tenantId, String shardId, long directoryVersion,
			Throwable cause) {
		super(message, cause);
		this.tenantId = tenantId;
		this.shardId = shardId;
		this.directoryVersion = directoryVersion;
	}

	/** @return the tenant concerned, or {@code null} when none applies */
	public String tenantId() {
		return this.tenantId;
	}

	/** @return the logical shard concerned, or {@code null} when none applies */
	public String shardId() {
		return this.shardId;
	}

	/** @return the directory version concerned, or {@code -1} when none applies */
	public long directoryVersion() {
		return this.directoryVersion;
	}

	/** Quotes a possibly hostile tenant id for a log or exception message: bounded length, control characters escaped. */
	protected static String quote(String value) {
		if (value == null) {
			return "null";
		}
		StringBuilder out = new StringBuilder(Math.min(value.length(), 80) + 2).append('\'');
		for (int i = 0; i < value.length() && i < 80; i++) {
			char c = value.charAt(i);
			if (c < 0x20 || c == 0x7f) {
				out.append(String.format("\\u%04x", (int) c));
			}
			else {
				out.append(c);
			}
		}
		if (value.length() > 80) {
			out.append("...(").append(value.length()).append(" chars)");
		}
		return out.append('\'').toString();
	}

}
