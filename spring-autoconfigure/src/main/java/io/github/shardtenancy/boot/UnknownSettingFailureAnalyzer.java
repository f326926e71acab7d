package io.github.shardtenancy.boot;

import java.beans.PropertyDescriptor;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.Type;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeSet;

import org.jspecify.annotations.Nullable;
import org.springframework.beans.BeanUtils;
import org.springframework.boot.context.properties.bind.UnboundConfigurationPropertiesException;
import org.springframework.boot.context.properties.source.ConfigurationProperty;
import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.core.Ordered;

/**
 * Explains a start refused because a key under {@code shard-tenancy.*} is not one of the library's settings (the
 * namespace is the library's: {@link ShardTenancyProperties} is bound with {@code ignoreUnknownFields = false}, so
 * Spring Boot's binder refuses a misspelt key before any bean reaches a database): each unknown key with its value and
 * origin, and the nearest valid key ("did you mean"). Keys of other namespaces are left to Spring Boot's own analyzer.
 * Registered in {@code META-INF/spring.factories}, ahead of Spring Boot's analyzers. Stateless and thread-safe.
 */
class UnknownSettingFailureAnalyzer extends AbstractFailureAnalyzer<UnboundConfigurationPropertiesException>
		implements Ordered {

	private static final String PREFIX = "shard-tenancy";

	/** The valid keys, a map key written {@code *}; computed once. */
	private static final List<String> KEYS = keys(PREFIX, ShardTenancyProperties.class, new ArrayList<>());

	@Override
	public int getOrder() {
		return Ordered.HIGHEST_PRECEDENCE;
	}

	@Override
	protected @Nullable FailureAnalysis analyze(Throwable rootFailure, UnboundConfigurationPropertiesException cause) {
		StringBuilder description = new StringBuilder("Unknown shard-tenancy setting(s): the shard-tenancy namespace "
				+ "belongs to the library, and these keys are none of its settings:\n");
		TreeSet<String> suggestions = new TreeSet<>();
		for (ConfigurationProperty property : cause.getUnboundProperties()) {
			String name = property.getName().toString();
			if (!name.startsWith(PREFIX + ".")) {
				return null;
			}
			description.append("\n    ").append(name).append(" = '").append(property.getValue()).append("'");
			if (property.getOrigin() != null) {
				description.append(" (").append(property.getOrigin()).append(")");
			}
			String nearest = nearest(name);
			if (nearest != null) {
				description.append(": did you mean ").append(nearest).append('?');
				suggestions.add(name + " -> " + nearest);
			}
		}
		String action = "Correct the key" + (suggestions.isEmpty() ? "" : " (" + String.join(", ", suggestions) + ")")
				+ " or remove it; docs/configuration.md lists every shard-tenancy setting.";
		return new FailureAnalysis(description.toString(), action, cause);
	}

	/**
	 * @param name an unknown key, in Spring Boot's canonical form
	 * @return the valid key nearest to it, its map keys taken from {@code name}, or {@code null} if none is close
	 */
	static @Nullable String nearest(String name) {
		String[] segments = name.split("\\.");
		String best = null;
		int bestDistance = Integer.MAX_VALUE;
		for (String key : KEYS) {
			String candidate = fill(key, segments);
			int distance = distance(name, candidate);
			if (distance < bestDistance) {
				best = candidate;
				bestDistance = distance;
			}
		}
		return (best != null && bestDistance > 0 && bestDistance <= Math.max(2, name.length() / 6)) ? best : null;
	}

	/** The key with each {@code *} segment replaced by the name's segment at that place. */
	private static String fill(String key, String[] segments) {
		String[] parts = key.split("\\.");
		for (int i = 0; i < parts.length; i++) {
			if (parts[i].equals("*")) {
				parts[i] = (i < segments.length) ? segments[i] : "*";
			}
		}
		return String.join(".", parts);
	}

	/** Levenshtein distance. */
	private static int distance(String a, String b) {
		int[] previous = new int[b.length() + 1];
		int[] current = new int[b.length() + 1];
		for (int j = 0; j <= b.length(); j++) {
			previous[j] = j;
		}
		for (int i = 1; i <= a.length(); i++) {
			current[0] = i;
			for (int j = 1; j <= b.length(); j++) {
				int cost = (a.charAt(i - 1) == b.charAt(j - 1)) ? 0 : 1;
				current[j] = Math.min(Math.min(current[j - 1] + 1, previous[j] + 1), previous[j - 1] + cost);
			}
			int[] swap = previous;
			previous = current;
			current = swap;
		}
		return previous[b.length()];
	}

	/** The keys of a properties class: its JavaBean properties, nested classes of this package walked into. */
	private static List<String> keys(String prefix, Class<?> type, List<String> into) {
		for (PropertyDescriptor descriptor : BeanUtils.getPropertyDescriptors(type)) {
			if (descriptor.getReadMethod() == null || descriptor.getName().equals("class")) {
				continue;
			}
			String key = prefix + "." + kebab(descriptor.getName());
			Class<?> propertyType = descriptor.getPropertyType();
			if (Map.class.isAssignableFrom(propertyType)) {
				Class<?> value = mapValue(descriptor.getReadMethod().getGenericReturnType());
				if (value != null && isOurs(value)) {
					keys(key + ".*", value, into);
				}
				else {
					into.add(key + ".*");
				}
			}
			else if (isOurs(propertyType) && !propertyType.isEnum()) {
				keys(key, propertyType, into);
			}
			else if (descriptor.getWriteMethod() != null) {
				into.add(key);
			}
		}
		return into;
	}

	private static boolean isOurs(Class<?> type) {
		return type.getPackageName().startsWith(ShardTenancyProperties.class.getPackageName());
	}

	private static @Nullable Class<?> mapValue(Type type) {
		if (type instanceof ParameterizedType parameterized && parameterized.getActualTypeArguments().length == 2
				&& parameterized.getActualTypeArguments()[1] instanceof Class<?> value) {
			return value;
		}
		return null;
	}

	private static String kebab(String name) {
		StringBuilder kebab = new StringBuilder();
		for (char c : name.toCharArray()) {
			if (Character.isUpperCase(c)) {
				kebab.append('-').append(Character.toLowerCase(c));
			}
			else {
				kebab.append(c);
			}
		}
		return kebab.toString().toLowerCase(Locale.ROOT);
	}

}
