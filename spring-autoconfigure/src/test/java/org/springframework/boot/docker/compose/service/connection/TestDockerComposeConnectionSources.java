package org.springframework.boot.docker.compose.service.connection;

import org.springframework.boot.docker.compose.core.RunningService;
import org.springframework.core.env.StandardEnvironment;

/**
 * Creates the {@link DockerComposeConnectionSource} Boot creates for each running Compose service (its constructor is
 * package-private), so that the registered factories can be asked about a service without Docker.
 */
public final class TestDockerComposeConnectionSources {

	private TestDockerComposeConnectionSources() {
	}

	public static DockerComposeConnectionSource of(RunningService service) {
		return new DockerComposeConnectionSource(service, new StandardEnvironment());
	}

}
