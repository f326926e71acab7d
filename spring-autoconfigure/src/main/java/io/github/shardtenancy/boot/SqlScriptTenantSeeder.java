package io.github.shardtenancy.boot;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.IntSupplier;
import java.util.function.LongSupplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

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
 * {@code ${shard}}, and each {@code ${id:name}} by a shard-safe id ({@code ShardTenancy.nextId()}), the same id for
 * the same name within one seed, so that rows can reference each other by key; each {@code ${intId:name}} likewise by
 * an {@code Integer} shard-safe id ({@code ShardTenancy.nextIntId()}, for {@code INTEGER} id columns; a name of its
 * own, apart from the names of {@code ${id:name}}). The scripts are resolved and read
 * once, at start-up. Thread-safe.
 */
final class SqlScriptTenantSeeder implements TenantSeeder {

	static final String LOCATIONS = "shard-tenancy.seed.locations";

	private static final String OPTIONAL = "optional:";

	private static final Pattern ID = Pattern.compile("\\$\\{id:([A-Za-z0-9_.-]+)}");

	private static final Pattern INT_ID = Pattern.compile("\\$\\{intId:([A-Za-z0-9_.-]+)}");

	private final List<Script> scripts;

	private final String separator;

	private final LongSupplier ids;

	private final IntSupplier intIds;

	private SqlScriptTenantSeeder(List<Script> scripts, String separator, LongSupplier ids, IntSupplier intIds) {
		this.scripts = List.copyOf(scripts);
		this.separator = separator;
		this.ids = ids;
		this.intIds = intIds;
	}

	/**
	 * @param properties the seed settings
	 * @param resolver resolves the locations
	 * @param ids the source of the ids of {@code ${id:name}}, asked only when a script contains one
	 * @param intIds the source of the ids of {@code ${intId:name}}, asked only when a script contains one
	 * @return the seeder, or {@code null} when no location is set
	 * @throws ShardTenancyConfigurationException if a location that is not optional matches no readable script
	 */
	static SqlScriptTenantSeeder of(SeedProperties properties, ResourcePatternResolver resolver, LongSupplier ids,
			IntSupplier intIds) {
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
		return new SqlScriptTenantSeeder(scripts, properties.getSeparator(), ids, intIds);
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
		Map<String, Long> named = new HashMap<>();
		Map<String, Integer> namedInt = new HashMap<>();
		for (Script script : this.scripts) {
			// The tenant id rule (letters, digits, . _ : -) keeps the replaced text safe inside a SQL string literal.
			String sql = script.sql().replace("${tenant}", tenant.tenantId()).replace("${shard}", tenant.shardId());
			Matcher id = ID.matcher(sql);
			sql = id.replaceAll((match) -> Long.toString(named.computeIfAbsent(match.group(1),
					(name) -> this.ids.getAsLong())));
			sql = INT_ID.matcher(sql).replaceAll((match) -> Integer.toString(namedInt.computeIfAbsent(match.group(1),
					(name) -> this.intIds.getAsInt())));
			populator.addScript(new ByteArrayResource(sql.getBytes(StandardCharsets.UTF_8), script.description()));
		}
		populator.populate(connection);
	}

	private record Script(String description, String sql) {
	}

}
