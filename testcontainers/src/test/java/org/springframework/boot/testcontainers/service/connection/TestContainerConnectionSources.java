package org.springframework.boot.testcontainers.service.connection;

import org.springframework.boot.origin.Origin;
import org.testcontainers.containers.Container;

/**
 * Creates the {@link ContainerConnectionSource} Boot creates for a {@code @ServiceConnection} container (its
 * constructor is package-private), so that the registered factories can be asked about it without Docker.
 */
public final class TestContainerConnectionSources {

	private TestContainerConnectionSources() {
	}

	public static <C extends Container<?>> ContainerConnectionSource<C> of(Class<C> containerType, String imageName,
			ServiceConnection annotation, C container) {
		return new ContainerConnectionSource<>("test", Origin.from(container), containerType, imageName, annotation,
				() -> container, null, null);
	}

}
