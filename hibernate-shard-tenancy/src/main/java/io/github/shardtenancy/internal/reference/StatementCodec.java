package io.github.shardtenancy.internal.reference;

import java.math.BigDecimal;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

import io.github.shardtenancy.ReferenceStatement;

/**
 * The text form of a reference write in the directory's log: length-prefixed, so that any SQL and value round-trips
 * exactly. {@code <count>;} then per statement {@code <length>:<sql><parameter count>;} then per parameter a type letter
 * and, but for {@code null}, {@code <length>:<value>}. Stateless.
 */
final class StatementCodec {

	private static final Class<?>[] TYPES = { String.class, Integer.class, Long.class, Short.class, BigDecimal.class,
			Double.class, Boolean.class, LocalDate.class, LocalDateTime.class, UUID.class };

	/** The type letter of each of {@link #TYPES}. */
	private static final String LETTERS = "SILHDFBATU";

	private StatementCodec() {
	}

	static String encode(List<ReferenceStatement> statements) {
		StringBuilder out = new StringBuilder();
		out.append(statements.size()).append(';');
		for (ReferenceStatement statement : statements) {
			text(out, statement.sql());
			out.append(statement.parameters().size()).append(';');
			for (Object value : statement.parameters()) {
				if (value == null) {
					out.append('N');
					continue;
				}
				out.append(type(value));
				text(out, value instanceof BigDecimal d ? d.toString() : String.valueOf(value));
			}
		}
		return out.toString();
	}

	private static char type(Object value) {
		Class<?> type = value.getClass();
		for (int i = 0; i < TYPES.length; i++) {
			if (TYPES[i] == type) {
				return LETTERS.charAt(i);
			}
		}
		throw new IllegalArgumentException("Unsupported type " + type.getName());
	}

	static List<ReferenceStatement> decode(String text) {
		int[] at = { 0 };
		int count = number(text, at, ';');
		List<ReferenceStatement> statements = new ArrayList<>(count);
		for (int s = 0; s < count; s++) {
			String sql = text(text, at);
			int parameters = number(text, at, ';');
			List<Object> values = new ArrayList<>(parameters);
			for (int p = 0; p < parameters; p++) {
				char type = text.charAt(at[0]++);
				if (type == 'N') {
					values.add(null);
					continue;
				}
				String value = text(text, at);
				values.add(switch (type) {
					case 'S' -> value;
					case 'I' -> Integer.valueOf(value);
					case 'L' -> Long.valueOf(value);
					case 'H' -> Short.valueOf(value);
					case 'D' -> new BigDecimal(value);
					case 'F' -> Double.valueOf(value);
					case 'B' -> Boolean.valueOf(value);
					case 'A' -> LocalDate.parse(value);
					case 'T' -> LocalDateTime.parse(value);
					case 'U' -> UUID.fromString(value);
					default -> throw new IllegalStateException("Corrupt reference log entry: type '" + type + "'");
				});
			}
			statements.add(new ReferenceStatement(sql, values));
		}
		return statements;
	}

	private static void text(StringBuilder out, String value) {
		out.append(value.length()).append(':').append(value);
	}

	private static String text(String text, int[] at) {
		int length = number(text, at, ':');
		String value = text.substring(at[0], at[0] + length);
		at[0] += length;
		return value;
	}

	private static int number(String text, int[] at, char end) {
		int stop = text.indexOf(end, at[0]);
		int value = Integer.parseInt(text.substring(at[0], stop));
		at[0] = stop + 1;
		return value;
	}

}
