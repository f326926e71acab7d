package io.github.shardtenancy.it.observability;

import java.util.List;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.classic.spi.ThrowableProxyUtil;
import ch.qos.logback.core.read.ListAppender;
import io.github.shardtenancy.RetriesExhaustedException;
import io.github.shardtenancy.retry.RetryAttempts;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * How fence rejections are logged, as the application's Logback sees it (a {@link ListAppender} on the root logger):
 * once, at DEBUG while the retry absorbs them and at WARN when they reach the caller, never as Hibernate's two WARN
 * lines. Each database runs it on two real Spring Boot instances of the orders application: instance A routes, the
 * other one moves tenants behind A's back.
 */
abstract class FenceRejectionLoggingContract {

	static final String FENCE_LOGGER = "io.github.shardtenancy.internal.hibernate.FenceRejectionLogging";

	static final String RETRY_LOGGER = RetryAttempts.class.getName();

	final ListAppender<ILoggingEvent> appender = new ListAppender<>();

	private final Logger root = (Logger) LoggerFactory.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME);

	/**
	 * Creates the tenant on shard-1 and writes through instance A, then moves it to shard-2 through the other
	 * instance: A's router still routes it to shard-1, whose fence rejects it MOVED.
	 * @param prefix the tenant's name, or its prefix
	 * @return the tenant
	 */
	abstract String movedByTheOtherInstance(String prefix);

	/**
	 * Creates the tenant on shard-1 with a fence that requires a directory version never reached: every attempt is
	 * rejected STALE.
	 * @param prefix the tenant's name, or its prefix
	 * @return the tenant
	 */
	abstract String staleOnShard1(String prefix);

	/** Places an order as the tenant through instance A's {@code @Transactional} service (the automatic retry). */
	abstract void place(String tenant, String customer);

	/** @return the tenant's orders of the customer on the shard */
	abstract long orders(String shard, String tenant, String customer);

	@BeforeEach
	void capture() {
		((Logger) LoggerFactory.getLogger(FENCE_LOGGER)).setLevel(Level.DEBUG);
		((Logger) LoggerFactory.getLogger(RETRY_LOGGER)).setLevel(Level.DEBUG);
		this.appender.start();
		this.root.addAppender(this.appender);
	}

	@AfterEach
	void release() {
		this.root.detachAppender(this.appender);
		((Logger) LoggerFactory.getLogger(FENCE_LOGGER)).setLevel(null);
		((Logger) LoggerFactory.getLogger(RETRY_LOGGER)).setLevel(null);
	}

	List<ILoggingEvent> events() {
		return List.copyOf(this.appender.list);
	}

	private static String text(ILoggingEvent event) {
		String text = event.getFormattedMessage();
		return (event.getThrowableProxy() != null) ? text + "\n" + ThrowableProxyUtil.asString(event.getThrowableProxy())
				: text;
	}

	private static boolean mentionsRejection(ILoggingEvent event) {
		String text = text(event);
		return text.contains("40001") || text.contains("shard fence");
	}

	private List<ILoggingEvent> warningsAboutRejections() {
		return events().stream()
			.filter((event) -> event.getLevel().isGreaterOrEqual(Level.WARN))
			.filter(FenceRejectionLoggingContract::mentionsRejection)
			.toList();
	}

	@Test
	@DisplayName("a rejection the retry absorbs (a stale route, MOVED) logs no WARN line and Hibernate none at all: one "
			+ "DEBUG line of the fence and one of the retry")
	void retriedRejectionIsLoggedAtDebugOnly() {
		String t = movedByTheOtherInstance("log-retried");
		this.appender.list.clear();

		place(t, "after the move");

		assertThat(orders("shard-2", t, "after the move")).isEqualTo(1);
		assertThat(warningsAboutRejections()).isEmpty();
		assertThat(events()).filteredOn((event) -> event.getLoggerName().startsWith("org.hibernate"))
			.filteredOn(FenceRejectionLoggingContract::mentionsRejection)
			.isEmpty();
		assertThat(events()).filteredOn((event) -> event.getLoggerName().equals(FENCE_LOGGER))
			.singleElement()
			.satisfies((event) -> {
				assertThat(event.getLevel()).isEqualTo(Level.DEBUG);
				assertThat(event.getFormattedMessage()).contains("'" + t + "'", "'shard-1'", "MOVED");
			});
		assertThat(events()).filteredOn((event) -> event.getLoggerName().equals(RETRY_LOGGER))
			.singleElement()
			.satisfies((event) -> {
				assertThat(event.getLevel()).isEqualTo(Level.DEBUG);
				assertThat(event.getFormattedMessage()).contains("'" + t + "'", "retrying");
			});
	}

	@Test
	@DisplayName("a rejection on every attempt ends in exactly one WARN line naming tenant, shard and reason; "
			+ "Hibernate logs none")
	void exhaustedRejectionIsLoggedOnceAtWarn() {
		String t = staleOnShard1("log-exhausted");
		this.appender.list.clear();

		assertThatThrownBy(() -> place(t, "never"))
			.isInstanceOf(RetriesExhaustedException.class);

		assertThat(warningsAboutRejections()).isEmpty();
		assertThat(events()).filteredOn((event) -> event.getLevel().isGreaterOrEqual(Level.WARN))
			.filteredOn((event) -> event.getFormattedMessage().contains("'" + t + "'"))
			.singleElement()
			.satisfies((event) -> {
				assertThat(event.getLoggerName()).isEqualTo(RETRY_LOGGER);
				assertThat(event.getFormattedMessage()).contains("'shard-1'", "STALE", "giving up");
			});
		assertThat(events()).filteredOn((event) -> event.getLoggerName().startsWith("org.hibernate"))
			.filteredOn((event) -> event.getLevel().isGreaterOrEqual(Level.WARN))
			.isEmpty();
	}

}
