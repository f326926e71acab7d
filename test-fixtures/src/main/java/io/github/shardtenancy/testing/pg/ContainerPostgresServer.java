package io.github.shardtenancy.testing.pg;

import java.sql.Connection;
import java.sql.DriverManager;
import java.time.Duration;
import java.util.List;

import org.awaitility.core.ConditionTimeoutException;
import org.testcontainers.postgresql.PostgreSQLContainer;

import static org.awaitility.Awaitility.await;

/**
 * A server in a Docker container (Testcontainers), used when Docker is available. The host port is fixed when the
 * container is created, so that a stop and start of the same container (data kept) serves the same URL.
 */
final class ContainerPostgresServer implements PostgresServer {

	private static final String IMAGE = "postgres:17-alpine";

	private final String name;

	private final int hostPort;

	private final PostgreSQLContainer container;

	private boolean running;

	ContainerPostgresServer(String name, int hostPort) {
		this.name = name;
		this.hostPort = hostPort;
		this.container = new PostgreSQLContainer(IMAGE).withDatabaseName("postgres")
			.withUsername("postgres")
			.withPassword("postgres")
			.withCommand("postgres", "-c", "fsync=off", "-c", "max_connections=200")
			.withCreateContainerCmdModifier(cmd -> cmd.getHostConfig()
				.withPortBindings(List.of(com.github.dockerjava.api.model.PortBinding
					.parse(hostPort + ":" + PostgreSQLContainer.POSTGRESQL_PORT))));
	}

	@Override
	public String name() {
		return this.name;
	}

	@Override
	public String jdbcUrl() {
		return "jdbc:postgresql://localhost:" + this.hostPort + "/postgres";
	}

	@Override
	public String user() {
		return "postgres";
	}

	@Override
	public String password() {
		return "postgres";
	}

	@Override
	public synchronized boolean isRunning() {
		return this.running;
	}

	@Override
	public synchronized void start() {
		if (this.running) {
			return;
		}
		if (this.container.getContainerId() == null) {
			this.container.start();
		}
		else {
			this.container.getDockerClient().startContainerCmd(this.container.getContainerId()).exec();
			awaitReady();
		}
		this.running = true;
	}

	@Override
	public synchronized void stop() {
		if (!this.running) {
			return;
		}
		this.container.getDockerClient().stopContainerCmd(this.container.getContainerId()).withTimeout(10).exec();
		this.running = false;
	}

	private void awaitReady() {
		try {
			await("container PostgreSQL '" + this.name + "' accepts connections").atMost(Duration.ofSeconds(60))
				.pollInterval(Duration.ofMillis(200))
				.ignoreExceptions()
				.until(() -> {
					try (Connection c = DriverManager.getConnection(jdbcUrl(), user(), password())) {
						return true;
					}
				});
		}
		catch (ConditionTimeoutException ex) {
			throw new IllegalStateException("Container PostgreSQL '" + this.name + "' did not come back", ex);
		}
	}

	@Override
	public String toString() {
		return "container PostgreSQL '" + this.name + "' on port " + this.hostPort;
	}

}
