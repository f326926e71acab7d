package io.github.shardtenancy.boot;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;

import io.github.shardtenancy.DirectoryEntry;
import io.github.shardtenancy.ShardTenancyConfigurationException;
import io.github.shardtenancy.spi.TenantSeeder;
import org.springframework.core.io.ByteArrayResource;
import org.springframework.core.io.Resource;
import org.springframework.core.io.support.ResourcePatternResolver;
import org.springframework.jdbc.datasource.init.ResourceDatabasePopulator;

/**
 * The {@link TenantSeeder} of {@code shard-tenancy.seed.locations}: runs the scripts, in order, with Spring's
 * {@link ResourceDatabasePopulator} on the seed transaction's connection, after replacing {@code ${tenant}} and
 * {@code ${shard}}. The scripts are resolved and read once, at start-up. Thread-safe.
 */
final class SqlScriptTenantSeeder implements TenantSeeder {

	static final String LOCATIONS = "shard-tenancy.seed.locations";

	private static final String OPTIONAL = "optional:";

	private final List<Script> scripts;

	private final String separator;

	private SqlScriptTenantSeeder(List<Script> scripts, String separator) {
		this.scripts = List.copyOf(scripts);
		this.separator = separator;
	}

	/**
	 * @param properties the seed settings
	 * @param resolver resolves the locations
	 * @return the seeder, or {@code null} when no location is set
	 * @throws ShardTenancyConfigurationException if a location that is not optional matches no readable script
	 */
	static SqlScriptTenantSeeder of(SeedProperties properties, ResourcePatternResolver resolver) {
		if (properties.getLocations().isEmpty()) {
			return null;
		}
		List<Script> scripts = new ArrayList<>();
		for (String location : properties.getLocations()) {
			boolean optional = location.startsWith(OPTIONAL);
			String pattern = optional ? location.substring(OPTIONAL.length()) : location;
			Resource[] found;
			try {
				found = resolver.getResources(pattern);
			}
			catch (IOException ex) {
				found = new Resource[0];
			}
			List<Resource> readable = Arrays.stream(found)
				.filter(Resource::isReadable)
				.sorted(Comparator.comparing((Resource r) -> String.valueOf(r.getFilename())))
				.toList();
			if (readable.isEmpty() && !optional) {
				throw new ShardTenancyConfigurationException(LOCATIONS, LOCATIONS + " contains '" + location
						+ "', which matches no readable SQL script: fix the location, or prefix it with 'optional:' "
						+ "if it may match nothing");
			}
			for (Resource resource : readable) {
				try (InputStream in = resource.getInputStream()) {
					scripts.add(new Script(resource.getDescription(), new String(in.readAllBytes(),
							StandardCharsets.UTF_8)));
				}
				catch (IOException ex) {
					throw new ShardTenancyConfigurationException(LOCATIONS, LOCATIONS + " contains '" + location
							+ "': cannot read " + resource.getDescription() + " (" + ex.getMessage() + ")");
				}
			}
		}
		return new SqlScriptTenantSeeder(scripts, properties.getSeparator());
	}

	/** @return the descriptions of the scripts, in the order they run */
	List<String> scripts() {
		return this.scripts.stream().map(Script::description).toList();
	}

	@Override
	public void seed(DirectoryEntry tenant, Connection connection) {
		ResourceDatabasePopulator populator = new ResourceDatabasePopulator();
		populator.setSeparator(this.separator);
		populator.setSqlScriptEncoding(StandardCharsets.UTF_8.name());
		for (Script script : this.scripts) {
			// The tenant id rule (letters, digits, . _ : -) keeps the replaced text safe inside a SQL string literal.
			String sql = script.sql().replace("${tenant}", tenant.tenantId()).replace("${shard}", tenant.shardId());
			populator.addScript(new ByteArrayResource(sql.getBytes(StandardCharsets.UTF_8), script.description()));
		}
		populator.populate(connection);
	}

	private record Script(String description, String sql) {
	}

}
