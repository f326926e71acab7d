package io.github.shardtenancy.internal.routing;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import io.github.shardtenancy.DirectoryEntry;
import io.github.shardtenancy.ShardTenancyException;
import io.github.shardtenancy.TenantState;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

@DisplayName("SnapshotApplier")
class SnapshotApplierTest {

	private final ExecutorService pool = Executors.newSingleThreadExecutor();

	@AfterEach
	void stop() {
		this.pool.shutdownNow();
	}

	private static DirectoryEntry entry(int i) {
		return new DirectoryEntry("applier-t" + i, "shard-1", TenantState.ACTIVE, null, 1, i + 1);
	}

	@Test
	@DisplayName("applies every entry handed over, in order, on another thread, before finish() returns")
	void appliesEveryEntryInOrder() {
		List<DirectoryEntry> applied = new CopyOnWriteArrayList<>();
		List<String> threads = new CopyOnWriteArrayList<>();
		int count = SnapshotApplier.BATCH * 3 + 7; // full batches and a partial one
		try (SnapshotApplier applier = new SnapshotApplier((e) -> {
			applied.add(e);
			threads.add(Thread.currentThread().getName());
		})) {
			for (int i = 0; i < count; i++) {
				applier.accept(entry(i));
			}
			applier.finish();
		}
		assertThat(applied).hasSize(count);
		for (int i = 0; i < count; i++) {
			assertThat(applied.get(i)).isEqualTo(entry(i));
		}
		assertThat(threads).containsOnly("shard-tenancy-snapshot-apply");
	}

	@Test
	@DisplayName("a failure while applying reaches the reader, and the entries after it are not applied")
	void failureReachesTheReader() {
		List<DirectoryEntry> applied = new CopyOnWriteArrayList<>();
		IllegalStateException boom = new IllegalStateException("boom");
		try (SnapshotApplier applier = new SnapshotApplier((e) -> {
			if (e.version() == 11) {
				throw boom;
			}
			applied.add(e);
		})) {
			for (int i = 0; i < 20; i++) {
				applier.accept(entry(i));
			}
			assertThatThrownBy(applier::finish).isSameAs(boom);
		}
		assertThat(applied).hasSize(10).last().isEqualTo(entry(9));
	}

	@Test
	@DisplayName("a reader interrupted while the applier is behind gets ShardTenancyException with its flag set")
	void interruptedReader() throws Exception {
		CountDownLatch release = new CountDownLatch(1);
		AtomicBoolean flagKept = new AtomicBoolean();
		try (SnapshotApplier applier = new SnapshotApplier((e) -> {
			try {
				release.await();
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
			}
		})) {
			Future<?> reader = this.pool.submit(() -> {
				try {
					// More than the queue holds while the applier waits on its first entry: the reader must block.
					for (int i = 0; i < SnapshotApplier.BATCH * (SnapshotApplier.QUEUED_BATCHES + 3); i++) {
						applier.accept(entry(i));
					}
				}
				finally {
					flagKept.set(Thread.currentThread().isInterrupted());
				}
				return null;
			});
			await().pollDelay(Duration.ofMillis(200)).atMost(Duration.ofSeconds(30)).until(() -> !reader.isDone());
			this.pool.shutdownNow(); // interrupts the reader
			assertThatThrownBy(() -> reader.get(30, TimeUnit.SECONDS)).hasCauseInstanceOf(ShardTenancyException.class)
				.hasMessageContaining("Interrupted while loading a directory snapshot");
			assertThat(flagKept).isTrue();
			release.countDown();
		}
	}

}
