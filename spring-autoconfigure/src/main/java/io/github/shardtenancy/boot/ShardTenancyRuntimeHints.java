package io.github.shardtenancy.boot;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Enumeration;
import java.util.List;

import org.springframework.aot.hint.MemberCategory;
import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.RuntimeHintsRegistrar;
import org.springframework.aot.hint.TypeReference;
import org.springframework.util.ClassUtils;

/**
 * What a native image of an application using the library needs at run time and cannot see by itself, registered
 * through {@code META-INF/spring/aot.factories}:
 *
 * <ul>
 * <li>resources: the Liquibase changelogs of the directory and the shards and the SQL files they include
 * ({@code db/shard-tenancy/**}), the SQL files of the fence dialects, read relative to their classes
 * ({@code io/github/shardtenancy/**}{@code /*.sql}), and the library's {@code META-INF/services} files;</li>
 * <li>reflection: every provider the library lists in those service files (the {@code ShardTenancyProvider}, the
 * fence dialects, the bulk copier, the Hibernate integrators, the context-propagation accessor), read from the
 * class path when the hints are computed, so that a new provider is covered without a change here; and the classes H2
 * calls by name: the Java functions the shard changelog installs with {@code CREATE ALIAS} and the row triggers the
 * H2 fence dialect installs with {@code CREATE TRIGGER ... CALL}, and the {@code @ShardSafeId} generator, which
 * Hibernate constructs by reflection.</li>
 * </ul>
 * The library creates no JDK proxies and serializes nothing with Java serialization. Hibernate receives its
 * connection provider and tenant identifier resolver as instances, not class names. The endpoint's response types are
 * registered by Actuator's own processing of its operations.
 *
 * @see <a href="https://docs.spring.io/spring-framework/reference/core/aot.html#aot.hints">Runtime hints</a>
 */
class ShardTenancyRuntimeHints implements RuntimeHintsRegistrar {

	/** The service interfaces for which the library's jars list providers. */
	static final List<String> SERVICES = List.of("io.github.shardtenancy.spi.ShardTenancyProvider",
			"io.github.shardtenancy.spi.FenceDialect", "io.github.shardtenancy.spi.BulkCopier",
			"org.hibernate.integrator.spi.Integrator", "org.hibernate.service.spi.ServiceContributor",
			"io.micrometer.context.ThreadLocalAccessor");

	/** The class of the H2 fence's Java functions ({@code CREATE ALIAS ... FOR 'class.method'}). */
	static final String H2_FUNCTIONS = "io.github.shardtenancy.h2.H2Fence";

	/** The H2 triggers the H2 fence dialect installs by class name. */
	static final List<String> H2_TRIGGERS = List.of("io.github.shardtenancy.h2.H2FenceTrigger",
			"io.github.shardtenancy.h2.H2CaptureTrigger");

	/** Hibernate's generator behind {@code @ShardSafeId}, which Hibernate constructs by reflection. */
	static final String ID_GENERATOR = "io.github.shardtenancy.internal.ids.ShardSafeIdGenerator";

	private static final String PACKAGE = "io.github.shardtenancy.";

	@Override
	public void registerHints(RuntimeHints hints, ClassLoader classLoader) {
		hints.resources().registerPattern("db/shard-tenancy/**");
		hints.resources().registerPattern("io/github/shardtenancy/**/*.sql");
		ClassLoader loader = (classLoader != null) ? classLoader : ClassUtils.getDefaultClassLoader();
		for (String service : SERVICES) {
			String file = "META-INF/services/" + service;
			hints.resources().registerPattern(file);
			for (String provider : providers(loader, file)) {
				hints.reflection()
					.registerType(TypeReference.of(provider), MemberCategory.INVOKE_PUBLIC_CONSTRUCTORS);
			}
		}
		hints.reflection().registerType(TypeReference.of(H2_FUNCTIONS), MemberCategory.INVOKE_PUBLIC_METHODS);
		for (String trigger : H2_TRIGGERS) {
			hints.reflection().registerType(TypeReference.of(trigger), MemberCategory.INVOKE_PUBLIC_CONSTRUCTORS);
		}
		hints.reflection().registerType(TypeReference.of(ID_GENERATOR), MemberCategory.INVOKE_PUBLIC_CONSTRUCTORS);
	}

	/**
	 * The library's providers listed in every copy of a service file on the class path, in the
	 * {@link java.util.ServiceLoader} file format (one class name a line, {@code #} starts a comment).
	 */
	static List<String> providers(ClassLoader loader, String file) {
		try {
			Enumeration<URL> urls = loader.getResources(file);
			List<String> out = new ArrayList<>();
			while (urls.hasMoreElements()) {
				try (BufferedReader reader = new BufferedReader(
						new InputStreamReader(urls.nextElement().openStream(), StandardCharsets.UTF_8))) {
					reader.lines()
						.map((line) -> line.replaceFirst("#.*", "").strip())
						.filter((name) -> name.startsWith(PACKAGE))
						.forEach(out::add);
				}
			}
			return out;
		}
		catch (IOException ex) {
			throw new UncheckedIOException("Cannot read " + file + " from the class path", ex);
		}
	}

}
