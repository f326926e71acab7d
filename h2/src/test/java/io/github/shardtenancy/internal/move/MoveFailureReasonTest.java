package io.github.shardtenancy.internal.move;

import java.sql.SQLException;
import java.util.NoSuchElementException;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The reason a failed move reports: the failure's own message, or, for a failure without one (pgjdbc's
 * {@code NoSuchElementException} on a connection a failed {@code COPY} left behind), its type and the first message
 * of its causes, never "null".
 */
@DisplayName("A failed move's reason is never \"null\"")
class MoveFailureReasonTest {

	@Test
	@DisplayName("a message is the reason; without one, the type and the first cause's message")
	void reasons() {
		assertThat(Mover.reason(new IllegalStateException("the target refused the row"))).isEqualTo(
				"the target refused the row");
		assertThat(Mover.reason(new NoSuchElementException())).isEqualTo("java.util.NoSuchElementException");
		RuntimeException wrapped = new RuntimeException((String) null,
				new SQLException("ERROR: cannot insert a non-DEFAULT value into column \"doubled\""));
		assertThat(Mover.reason(wrapped)).isEqualTo("java.lang.RuntimeException (caused by java.sql.SQLException: "
				+ "ERROR: cannot insert a non-DEFAULT value into column \"doubled\")");
	}

}
