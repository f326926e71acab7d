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
import java.util.Locale;
import java.util.Map;
import java.util.function.LongSupplier;
import java.util.function.ToIntFunction;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import io.github.shardtenancy.DirectoryEntry;
import io.github.shardtenancy.ShardTenancyConfigurationException;
import io.github.shardtenancy.spi.TenantSeeder;
import org.jspecify.annotations.Nullable;
import org.springframework.core.io.ByteArrayResource;
import org.springframework.core.io.Resource;
import org.springframework.core.io.support.ResourcePatternResolver;
import org.springframework.jdbc.datasource.init.ResourceDatabasePopulator;

/**
 * The {@link TenantSeeder} of {@code shard-tenancy.seed.locations}: runs the scripts, in order, with Spring's
 * {@link ResourceDatabasePopulator} on the seed transaction's connection, after replacing {@code ${tenant}} and
 * {@code ${shard}}, and each {@code ${id:name}} by a shard-safe id ({@code ShardTenancy.nextId()}), the same id for
 * the same name within one seed, so that rows can reference each other by key; each {@code ${intId:table:name}}
 * likewise by an {@code Integer} shard-safe id of that table's counter ({@code ShardTenancy.nextIntId(table)}, as
 * {@code @ShardSafeId} on an {@code Integer} id of an entity of that table draws, for {@code INTEGER} id columns), and
 * each {@code ${intId:name}} by one of the default counter ({@code ShardTenancy.nextIntId()}); the names of each
 * counter are apart from the others' and from the names of {@code ${id:name}}. Ids are drawn in the order the
 * placeholders appear, script by script. The scripts are resolved and read once, at start-up. Thread-safe.
 */
final class SqlScriptTenantSeeder implements TenantSeeder {

	static final String LOCATIONS = "shard-tenancy.seed.locations";

	private static final String OPTIONAL = "optional:";

	private static final Pattern ID = Pattern.compile("\\$\\{id:([A-Za-z0-9_.-]+)}");

	/** {@code ${intId:name}} (group 2 only) or {@code ${intId:table:name}} (groups 1 and 2). */
	private static final Pattern INT_ID = Pattern.compile("\\$\\{intId:(?:([A-Za-z0-9_.-]+):)?([A-Za-z0-9_.-]+)}");

	private final List<Script> scripts;

	private final String separator;

	private final LongSupplier ids;

	private final ToIntFunction<@Nullable String> intIds;

	private SqlScriptTenantSeeder(List<Script> scripts, String separator, LongSupplier ids,
			ToIntFunction<@Nullable String> intIds) {
		this.scripts = List.copyOf(scripts);
		this.separator = separator;
		this.ids = ids;
		this.intIds = intIds;
	}

	/**
	 * @param properties the seed settings
	 * @param resolver resolves the locations
	 * @param ids the source of the ids of {@code ${id:name}}, asked only when a script contains one
	 * @param intIds the source of the ids of {@code ${intId:table:name}} (given the table) and of {@code ${intId:name}}
	 * (given {@code null}: the default counter), asked only when a script contains one
	 * @return the seeder, or {@code null} when no location is set
	 * @throws ShardTenancyConfigurationException if a location that is not optional matches no readable script
	 */
	static SqlScriptTenantSeeder of(SeedProperties properties, ResourcePatternResolver resolver, LongSupplier ids,
			ToIntFunction<@Nullable String> intIds) {
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
		// Per counter (the table, or "" for the default counter): the ids by name.
		Map<String, Map<String, Integer>> namedInt = new HashMap<>();
		for (Script script : this.scripts) {
			// The tenant id rule (letters, digits, . _ : -) keeps the replaced text safe inside a SQL string literal.
			String sql = script.sql().replace("${tenant}", tenant.tenantId()).replace("${shard}", tenant.shardId());
			Matcher id = ID.matcher(sql);
			sql = id.replaceAll((match) -> Long.toString(named.computeIfAbsent(match.group(1),
					(name) -> this.ids.getAsLong())));
			sql = INT_ID.matcher(sql).replaceAll((match) -> {
				String table = match.group(1);
				return Integer.toString(namedInt.computeIfAbsent((table != null) ? table.toLowerCase(Locale.ROOT) : "",
						(counter) -> new HashMap<>())
					.computeIfAbsent(match.group(2), (name) -> this.intIds.applyAsInt(table)));
			});
			populator.addScript(new ByteArrayResource(sql.getBytes(StandardCharsets.UTF_8), script.description()));
		}
		populator.populate(connection);
	}

	private record Script(String description, String sql) {
	}

}
