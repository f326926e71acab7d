package io.github.shardtenancy.internal.routing;

import java.time.Instant;

import io.github.shardtenancy.DirectoryDownPolicy;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Whether a {@link Router} last reached its directory, and since when it has not. Thread-safe. */
final class DirectoryHealth {

	private static final Logger log = LoggerFactory.getLogger(Router.class);

	private volatile Instant downSince;

	/** @return when the directory became unreachable, or {@code null} while it is reachable */
	Instant downSince() {
		return this.downSince;
	}

	void down(RuntimeException ex, DirectoryDownPolicy policy) {
		if (this.downSince == null) {
			this.downSince = Instant.now();
			log.warn("Directory unreachable, policy {}: {}", policy, ex.getMessage());
		}
	}

	void up(long version) {
		Instant since = this.downSince;
		if (since != null) {
			log.info("Directory reachable again (was down since {}), version {}", since, version);
			this.downSince = null;
		}
	}

}
