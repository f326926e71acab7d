package io.github.shardtenancy.internal.routing;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

import io.github.shardtenancy.spi.ShardTenancyObserver;

/** The observers added to a {@link Router}, in order, and all of them as one. Thread-safe. */
final class Observers {

	/** Guarded by itself. */
	private final List<ShardTenancyObserver> added = new ArrayList<>();

	/** All observers as one ({@link ShardTenancyObserver#composite}), rebuilt when one is added or removed. */
	private volatile ShardTenancyObserver all = ShardTenancyObserver.NONE;

	void add(ShardTenancyObserver value) {
		Objects.requireNonNull(value, "observer");
		synchronized (this.added) {
			if (this.added.stream().noneMatch((o) -> o == value)) {
				this.added.add(value);
				this.all = ShardTenancyObserver.composite(this.added);
			}
		}
	}

	boolean remove(ShardTenancyObserver value) {
		Objects.requireNonNull(value, "observer");
		synchronized (this.added) {
			boolean removed = this.added.removeIf((o) -> o == value);
			this.all = ShardTenancyObserver.composite(this.added);
			return removed;
		}
	}

	ShardTenancyObserver all() {
		return this.all;
	}

}
