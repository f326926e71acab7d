package io.github.shardtenancy.postgresql;

import java.net.ServerSocket;
import java.time.Duration;

import io.github.shardtenancy.internal.directory.Directory;
import io.github.shardtenancy.RouterSettings;
import io.github.shardtenancy.internal.routing.Router;
import org.h2.jdbcx.JdbcDataSource;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * The watcher's life cycle without a PostgreSQL server (the behaviour against real servers is covered by the
 * {@code src-it} PostgreSQL tests): a listener URL nobody answers on.
 */
@DisplayName("DirectoryWatcher without a reachable server")
class DirectoryWatcherTest {

	@Test
	@DisplayName("a watcher whose server cannot be reached starts RECONNECTING, reports since when, and stops cleanly")
	void unreachableServerIsReconnectingUntilClosed() throws Exception {
		int port;
		try (ServerSocket socket = new ServerSocket(0)) {
			port = socket.getLocalPort(); // closed again: nothing listens there
		}
		JdbcDataSource h2 = new JdbcDataSource();
		h2.setURL("jdbc:h2:mem:watcher-test;DB_CLOSE_DELAY=-1");
		Router router = new Router(new Directory(h2), RouterSettings.defaults());
		DirectoryWatcher watcher = new DirectoryWatcher(router, "jdbc:postgresql://127.0.0.1:" + port + "/postgres",
				null, WatcherSettings.defaults().withBackoff(Duration.ofMillis(10), Duration.ofMillis(50)));
		assertThat(watcher.state()).isEqualTo(DirectoryWatcher.State.STOPPED);

		watcher.start();

		assertThat(watcher.state()).isEqualTo(DirectoryWatcher.State.RECONNECTING);
		assertThat(watcher.downSince()).isPresent();
		assertThat(watcher.isHealthy()).isFalse();
		assertThat(watcher.awaitListening(Duration.ofMillis(200))).isFalse();
		assertThat(watcher.status().listenerBackendPid()).isEqualTo(-1);
		assertThat(watcher.status().reconnects()).isZero();

		watcher.close();

		assertThat(watcher.state()).isEqualTo(DirectoryWatcher.State.STOPPED);
		assertThat(watcher.downSince()).isEmpty();
	}

	@Test
	@DisplayName("settings refuse non-positive durations and a maximum backoff below the initial one")
	void settingsAreValidated() {
		assertThatIllegalArgumentException()
			.isThrownBy(() -> WatcherSettings.defaults().withPollInterval(Duration.ZERO))
			.withMessageContaining("pollInterval");
		assertThatIllegalArgumentException()
			.isThrownBy(() -> WatcherSettings.defaults().withBackoff(Duration.ofSeconds(2), Duration.ofSeconds(1)))
			.withMessageContaining("maxBackoff");
	}

}
