package io.github.shardtenancy.boot;

import java.io.IOException;
import java.io.InputStream;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.net.URL;
import java.sql.Connection;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;

import com.jayway.jsonpath.Configuration;
import com.jayway.jsonpath.DocumentContext;
import com.jayway.jsonpath.JsonPath;
import com.jayway.jsonpath.Option;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.beans.BeanUtils;
import org.springframework.boot.convert.DurationStyle;
import org.springframework.util.ClassUtils;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The hints of the {@code shard-tenancy.*} configuration metadata, as the annotation processor merges them from
 * {@code META-INF/additional-spring-configuration-metadata.json} into {@code META-INF/spring-configuration-metadata.json}:
 * every enumerated property lists exactly its values, every duration offers example values in Boot's format, and no
 * hint names a property that does not exist.
 *
 * @see <a href="https://docs.spring.io/spring-boot/specification/configuration-metadata/format.html#appendix.configuration-metadata.format.hints">
 * Configuration metadata: hint attributes</a>
 */
class ConfigurationMetadataHintsTests {

	private static final String PREFIX = "shard-tenancy.";

	private static final ClassLoader LOADER = ConfigurationMetadataHintsTests.class.getClassLoader();

	/** Properties by name: type and default. */
	private static final Map<String, Map<String, Object>> properties = new LinkedHashMap<>();

	/** Hints by name. */
	private static final Map<String, Map<String, Object>> hints = new LinkedHashMap<>();

	@BeforeAll
	static void read() throws IOException {
		for (URL file : Collections.list(LOADER.getResources("META-INF/spring-configuration-metadata.json"))) {
			DocumentContext metadata;
			try (InputStream in = file.openStream()) {
				// A metadata file may leave out any of its sections (other jars' have no hints): read those as empty.
				metadata = JsonPath.using(Configuration.defaultConfiguration().addOptions(Option.SUPPRESS_EXCEPTIONS))
					.parse(in);
			}
			List<Map<String, Object>> entries = metadata.read("$.properties[*]");
			entries.stream().filter((entry) -> ((String) entry.get("name")).startsWith(PREFIX))
				.forEach((entry) -> properties.put((String) entry.get("name"), entry));
			List<Map<String, Object>> hintEntries = metadata.read("$.hints[*]");
			hintEntries.stream().filter((entry) -> ((String) entry.get("name")).startsWith(PREFIX))
				.forEach((entry) -> hints.put((String) entry.get("name"), entry));
		}
		assertThat(properties).as("shard-tenancy properties in the generated metadata").isNotEmpty();
	}

	@Test
	void everyEnumPropertyListsExactlyItsValues() {
		List<String> wrong = new ArrayList<>();
		int enums = 0;
		for (Map<String, Object> property : properties.values()) {
			Class<?> type = typeOf(elementType((String) property.get("type")));
			if (type == null || !type.isEnum()) {
				continue;
			}
			enums++;
			List<String> expected = Arrays.stream(type.getEnumConstants())
				.map((constant) -> ((Enum<?>) constant).name().toLowerCase(Locale.ROOT).replace('_', '-'))
				.toList();
			String name = (String) property.get("name");
			if (!hintValues(name).equals(expected)) {
				wrong.add(name + ": hint values " + hintValues(name) + ", values " + expected);
			}
			if (!hintDescriptionsPresent(name)) {
				wrong.add(name + ": a hint value without a description");
			}
		}
		assertThat(enums).as("enum properties found").isGreaterThanOrEqualTo(2);
		assertThat(wrong).as("enum properties whose hints are missing or differ from the enum").isEmpty();
	}

	@Test
	void everyDurationPropertyOffersValuesInBootsFormatIncludingItsDefault() {
		List<String> wrong = new ArrayList<>();
		for (Map<String, Object> property : properties.values()) {
			if (!Duration.class.getName().equals(property.get("type"))) {
				continue;
			}
			String name = (String) property.get("name");
			List<String> values = hintValues(name);
			if (values.isEmpty()) {
				wrong.add(name + ": no value hints");
				continue;
			}
			List<Duration> durations = new ArrayList<>();
			for (String value : values) {
				try {
					durations.add(DurationStyle.SIMPLE.parse(value));
				}
				catch (IllegalArgumentException ex) {
					wrong.add(name + ": hint '" + value + "' is not a duration like 5s");
				}
			}
			Object defaultValue = property.get("defaultValue");
			if (defaultValue != null
					&& !durations.contains(DurationStyle.detectAndParse(String.valueOf(defaultValue)))) {
				wrong.add(name + ": no hint for the default " + defaultValue);
			}
		}
		assertThat(wrong).as("duration properties without proper hints").isEmpty();
	}

	/** The values of a map (the shards) are bound from their classes; they must hold no enum the hints miss. */
	@Test
	void mapValuesHoldNoEnumsWithoutHints() {
		List<String> enums = new ArrayList<>();
		for (var descriptor : BeanUtils.getPropertyDescriptors(ShardProperties.class)) {
			if (descriptor.getWriteMethod() != null && descriptor.getPropertyType().isEnum()) {
				enums.add(descriptor.getName());
			}
		}
		assertThat(enums).as("enum properties of shard-tenancy.shards.<id>.* (hints cannot name them)").isEmpty();
	}

	@Test
	void transactionIsolationHintsAreJdbcLevels() {
		List<String> levels = Arrays.stream(Connection.class.getFields())
			.filter((field) -> Modifier.isStatic(field.getModifiers()) && field.getName().startsWith("TRANSACTION_"))
			.map(Field::getName)
			.sorted()
			.toList();
		for (String group : List.of("shard-tenancy.pool.hikari", "shard-tenancy.directory.hikari")) {
			assertThat(properties).containsKey(group + ".transaction-isolation");
			assertThat(hintValues(group + ".transaction-isolation")).as(group).containsExactlyInAnyOrderElementsOf(levels);
		}
	}

	@Test
	void everyHintNamesAProperty() {
		assertThat(hints.keySet()).as("hints naming no shard-tenancy property").allSatisfy(
				(name) -> assertThat(properties).containsKey(name));
	}

	@SuppressWarnings("unchecked")
	private static List<String> hintValues(String name) {
		Map<String, Object> hint = hints.get(name);
		if (hint == null || hint.get("values") == null) {
			return List.of();
		}
		return ((List<Map<String, Object>>) hint.get("values")).stream()
			.map((value) -> String.valueOf(value.get("value")))
			.toList();
	}

	@SuppressWarnings("unchecked")
	private static boolean hintDescriptionsPresent(String name) {
		return ((List<Map<String, Object>>) hints.get(name).get("values")).stream()
			.map((value) -> value.get("description"))
			.allMatch(Objects::nonNull);
	}

	/** @return the element type of a {@code java.util.List<...>} (whose hints list the element's values), else the type */
	private static String elementType(String name) {
		return (name != null && name.startsWith("java.util.List<") && name.endsWith(">"))
				? name.substring("java.util.List<".length(), name.length() - 1) : name;
	}

	private static Class<?> typeOf(String name) {
		if (name == null || name.contains("<")) {
			return null;
		}
		try {
			return ClassUtils.forName(name, LOADER);
		}
		catch (ClassNotFoundException | LinkageError ex) {
			return null;
		}
	}

}
