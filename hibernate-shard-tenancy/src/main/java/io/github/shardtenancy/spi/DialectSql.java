package io.github.shardtenancy.spi;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * Helpers for {@link FenceDialect} implementations that keep their SQL in {@code .sql} resource files next to their
 * classes, and write checked identifiers into DDL. Stateless and thread-safe.
 */
public final class DialectSql {

	private static final Pattern IDENTIFIER = Pattern
		.compile("[A-Za-z_][A-Za-z0-9_]{0,62}(\\.[A-Za-z_][A-Za-z0-9_]{0,62})?");

	private DialectSql() {
	}

	/**
	 * Reads one statement from a resource file in the package of {@code anchor}; lines whose first non-blank
	 * characters are {@code --} are comments and are dropped. Call it once per statement (keep the result in a static
	 * field): it reads the file each time.
	 * @param anchor a class of the package that holds the file
	 * @param name the file name without {@code .sql}, e.g. {@code bind}
	 * @return the statement, without comments and surrounding blanks; never {@code null}
	 * @throws IllegalStateException if the file is missing (a broken build)
	 * @throws UncheckedIOException if it cannot be read
	 */
	public static String load(Class<?> anchor, String name) {
		try (InputStream in = anchor.getResourceAsStream(name + ".sql")) {
			if (in == null) {
				throw new IllegalStateException(
						"Missing SQL resource " + name + ".sql in package " + anchor.getPackageName());
			}
			return new String(in.readAllBytes(), StandardCharsets.UTF_8).lines()
				.filter(line -> !line.stripLeading().startsWith("--"))
				.collect(Collectors.joining("\n"))
				.strip();
		}
		catch (IOException ex) {
			throw new UncheckedIOException("Cannot read SQL resource " + name + ".sql in package "
					+ anchor.getPackageName(), ex);
		}
	}

	/**
	 * Fills the names in braces of a statement loaded by {@link #load}, e.g. {@code {table}}. Only for identifiers
	 * checked by {@link #identifier} and for fixed keywords of the dialect; values are bound as parameters.
	 * @param template the statement
	 * @param names the value of each name
	 * @return the statement with every given name filled in; never {@code null}
	 */
	public static String fill(String template, Map<String, String> names) {
		String sql = template;
		for (Map.Entry<String, String> name : names.entrySet()) {
			sql = sql.replace("{" + name.getKey() + "}", name.getValue());
		}
		return sql;
	}

	/**
	 * Checks an SQL identifier that must be written into SQL, where it cannot be bound.
	 * @param identifier a table or column name, optionally schema-qualified
	 * @return the same name
	 * @throws IllegalArgumentException if it is {@code null} or anything but letters, digits and underscores (1 to 63
	 * characters per part, not starting with a digit)
	 */
	public static String identifier(String identifier) {
		if (identifier == null || !IDENTIFIER.matcher(identifier).matches()) {
			throw new IllegalArgumentException("Not a plain SQL identifier: '" + identifier + "'");
		}
		return identifier;
	}

}
