package io.github.shardtenancy.it.architecture;

import java.nio.file.Files;
import java.nio.file.Path;

/** The repository's root directory, for the tests that read the build's files rather than its classes. */
final class RepositoryRoot {

	private RepositoryRoot() {
	}

	/** @return the root: Maven's multi-module project directory, or this module's parent directory */
	static Path find() {
		Path root = Path.of(System.getProperty("maven.multiModuleProjectDirectory", ".."));
		return Files.isDirectory(root.resolve("hibernate-shard-tenancy")) ? root : Path.of("..");
	}

}
