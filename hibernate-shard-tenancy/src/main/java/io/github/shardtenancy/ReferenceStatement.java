package io.github.shardtenancy;

import java.math.BigDecimal;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Objects;
import java.util.UUID;

/**
 * One statement of a reference-data write: SQL ({@code INSERT}, {@code UPDATE}, {@code DELETE} or {@code MERGE} on
 * reference tables) with its positional ({@code ?}) parameters. It is recorded in the directory and replayed as it is
 * on every shard, so it must be deterministic: the same rows before give the same rows after on every shard (no
 * {@code CURRENT_TIMESTAMP}, random values or per-shard sequences; give ids and times as parameters).
 *
 * @param sql the statement, never {@code null} or blank
 * @param parameters its parameters in order; each {@code null}, a {@link String}, {@link Integer}, {@link Long},
 * {@link Short}, {@link BigDecimal}, {@link Double}, {@link Boolean}, {@link LocalDate}, {@link LocalDateTime} or
 * {@link UUID}; never {@code null} itself (may be empty)
 */
public record ReferenceStatement(String sql, List<Object> parameters) {

	private static final List<Class<?>> TYPES = List.of(String.class, Integer.class, Long.class, Short.class,
			BigDecimal.class, Double.class, Boolean.class, LocalDate.class, LocalDateTime.class, UUID.class);

	/**
	 * @throws IllegalArgumentException if the SQL is blank or a parameter has a type not listed above
	 * @throws NullPointerException if the SQL or the parameter list is {@code null}
	 */
	public ReferenceStatement {
		Objects.requireNonNull(sql, "sql");
		Objects.requireNonNull(parameters, "parameters");
		if (sql.isBlank()) {
			throw new IllegalArgumentException("A reference statement needs SQL");
		}
		for (Object parameter : parameters) {
			if (parameter != null && !TYPES.contains(parameter.getClass())) {
				throw new IllegalArgumentException("Parameter type " + parameter.getClass().getName()
						+ " cannot be recorded for replay; use one of " + TYPES);
			}
		}
		parameters = Collections.unmodifiableList(new ArrayList<>(parameters));
	}

	/**
	 * @param sql the statement
	 * @param parameters its positional parameters (see the record's description)
	 * @return the statement
	 * @throws IllegalArgumentException as the constructor
	 */
	public static ReferenceStatement of(String sql, Object... parameters) {
		return new ReferenceStatement(sql, parameters == null ? List.of() : java.util.Arrays.asList(parameters));
	}

}
