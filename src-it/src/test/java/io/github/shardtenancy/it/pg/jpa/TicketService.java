package io.github.shardtenancy.it.pg.jpa;

import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;

import jakarta.persistence.EntityManager;
import jakarta.persistence.PersistenceContext;
import org.hibernate.Session;
import org.springframework.data.domain.Page;
import org.springframework.data.domain.PageRequest;
import org.springframework.data.domain.Sort;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.stereotype.Service;
import org.springframework.transaction.annotation.Isolation;
import org.springframework.transaction.annotation.Transactional;

/**
 * Transactions as an application writes them, one per kind of first statement. Each body counts its runs, so that a
 * test sees whether a rejected attempt entered the body before the retry ran it again.
 */
@Service
public class TicketService {

	/** What a transaction saw: the session's tenant variable and the transaction's settings. */
	public record Seen(String tenant, String isolation, String readOnly) {
	}

	@PersistenceContext
	private EntityManager entityManager;

	private final TicketRepository tickets;

	private final RemarkRepository remarks;

	private final ParcelRepository parcels;

	private final JdbcTemplate jdbc;

	private final AtomicInteger bodyRuns = new AtomicInteger();

	TicketService(TicketRepository tickets, RemarkRepository remarks, ParcelRepository parcels, JdbcTemplate jdbc) {
		this.tickets = tickets;
		this.remarks = remarks;
		this.parcels = parcels;
		this.jdbc = jdbc;
	}

	/** First statement: a derived query. */
	@Transactional
	public List<Ticket> byTitle(String title) {
		this.bodyRuns.incrementAndGet();
		return this.tickets.findByTitleOrderById(title);
	}

	/** First statement: a JPQL query. */
	@Transactional
	public List<Ticket> urgent(int min) {
		this.bodyRuns.incrementAndGet();
		return this.tickets.findUrgent(min);
	}

	/** First statements: a page's select, then its count query. */
	@Transactional(readOnly = true)
	public Page<Ticket> page(int min, int page, int size) {
		this.bodyRuns.incrementAndGet();
		return this.tickets.findByPriorityGreaterThanEqual(min, PageRequest.of(page, size, Sort.by("id")));
	}

	/** First statement: a query read as a stream in batches of a fetch size. */
	@Transactional(readOnly = true)
	public List<String> streamTitles() {
		this.bodyRuns.incrementAndGet();
		try (Stream<Ticket> all = this.tickets.streamAll()) {
			return all.map(Ticket::getTitle).toList();
		}
	}

	/** First statement: {@code select ... for no key update}; then the locked ticket is changed. */
	@Transactional
	public Ticket lockAndRetitle(long id, String title) {
		this.bodyRuns.incrementAndGet();
		Ticket ticket = this.tickets.findLockedById(id).orElseThrow();
		ticket.setTitle(title);
		return ticket;
	}

	/** First statements: Hibernate's lock timeout handling, then {@code select ... for no key update}. */
	@Transactional
	public Ticket lockWithTimeoutAndRetitle(long id, String title) {
		this.bodyRuns.incrementAndGet();
		Ticket ticket = this.tickets.findLockedWithTimeoutById(id).orElseThrow();
		ticket.setTitle(title);
		return ticket;
	}

	/** First statement: {@code select nextval('pg_ticket_seq')}, then the insert at commit. */
	@Transactional
	public Ticket open(String title, int priority) {
		this.bodyRuns.incrementAndGet();
		return this.tickets.save(new Ticket(title, priority));
	}

	/** First statements: one {@code select nextval} per ticket, then the inserts (batched when batching is on). */
	@Transactional
	public List<Ticket> openAll(List<String> titles) {
		this.bodyRuns.incrementAndGet();
		return this.tickets.saveAll(titles.stream().map(t -> new Ticket(t, 1)).toList());
	}

	/** First statement: an insert returning the IDENTITY key. */
	@Transactional
	public Remark remark(String body) {
		this.bodyRuns.incrementAndGet();
		return this.remarks.save(new Remark(body));
	}

	/** First statements: the inserts of new UUID entities (batched when batching is on), at commit. */
	@Transactional
	public List<Parcel> ship(List<String> labels) {
		this.bodyRuns.incrementAndGet();
		return this.parcels.saveAll(labels.stream().map(Parcel::new).toList());
	}

	/** First statement: a native query with a {@code ;} inside a string literal. */
	@Transactional
	public List<Ticket> nativeWithSemicolonLiteral() {
		this.bodyRuns.incrementAndGet();
		return this.tickets.findBySessionTenantWithSemicolonLiteral();
	}

	/** First statement: a native query without a {@code ;}. */
	@Transactional
	public List<Ticket> nativeBySessionTenant() {
		this.bodyRuns.incrementAndGet();
		return this.tickets.findBySessionTenant();
	}

	/** First statement: JdbcTemplate's prepared statement with an argument. */
	@Transactional
	public long jdbcCount(String title) {
		this.bodyRuns.incrementAndGet();
		return this.jdbc.queryForObject(
				"select count(*) from pg_ticket where tenant_id = current_setting('shard_tenancy.tenant', true) "
						+ "and title = ?",
				Long.class, title);
	}

	/** First statement: JdbcTemplate's plain statement (no arguments: {@code createStatement}). */
	@Transactional
	public List<String> jdbcTitles() {
		this.bodyRuns.incrementAndGet();
		return this.jdbc.queryForList("select title from pg_ticket "
				+ "where tenant_id = current_setting('shard_tenancy.tenant', true) order by id", String.class);
	}

	/** First statement: JdbcTemplate's prepared statement with a {@code null} argument of unknown type. */
	@Transactional
	public long jdbcCountWithNullArgument(String title) {
		this.bodyRuns.incrementAndGet();
		return this.jdbc.queryForObject("select count(*) from pg_ticket "
				+ "where tenant_id = current_setting('shard_tenancy.tenant', true) and (?::text is null or title = ?)",
				Long.class, title, title);
	}

	/** JdbcTemplate's prepared statement with a {@code null} argument of unknown type in second position. */
	@Transactional
	public long jdbcCountWithSecondNullArgument(int priority, String title) {
		this.bodyRuns.incrementAndGet();
		return this.jdbc.queryForObject("select count(*) from pg_ticket "
				+ "where tenant_id = current_setting('shard_tenancy.tenant', true) and priority = ? "
				+ "and (?::varchar is null or title = ?::varchar)", Long.class, priority, title, title);
	}

	/** A read-only transaction's first query reports what it runs in. */
	@Transactional(readOnly = true)
	public Seen seeReadOnly() {
		this.bodyRuns.incrementAndGet();
		return see();
	}

	/** A SERIALIZABLE transaction's first query reports what it runs in. */
	@Transactional(isolation = Isolation.SERIALIZABLE)
	public Seen seeSerializable() {
		this.bodyRuns.incrementAndGet();
		return see();
	}

	/** A REPEATABLE READ transaction's first query reports what it runs in. */
	@Transactional(isolation = Isolation.REPEATABLE_READ)
	public Seen seeRepeatableRead() {
		this.bodyRuns.incrementAndGet();
		return see();
	}

	/**
	 * Sets the isolation and read-only flag on the JDBC connection itself before the first statement (what code does
	 * when the transaction manager cannot), then reports what the first query runs in.
	 */
	@Transactional
	public Seen seeWithConnectionSettings(int isolation, boolean readOnly) {
		this.bodyRuns.incrementAndGet();
		this.entityManager.unwrap(Session.class).doWork(connection -> {
			connection.setTransactionIsolation(isolation);
			connection.setReadOnly(readOnly);
		});
		return see();
	}

	/** A transaction with a timeout (s), which Hibernate sets on each statement, reports what it runs in. */
	@Transactional(timeout = 30)
	public Seen seeWithTimeout() {
		this.bodyRuns.incrementAndGet();
		return see();
	}

	/** @return what a plain native query of the current transaction sees */
	@Transactional
	public Seen see() {
		Object[] row = (Object[]) this.entityManager
			.createNativeQuery("select current_setting('shard_tenancy.tenant', true), "
					+ "current_setting('transaction_isolation'), current_setting('transaction_read_only')")
			.getSingleResult();
		return new Seen((String) row[0], (String) row[1], (String) row[2]);
	}

	/** @return how many times a body ran since the last reset */
	public int bodyRuns() {
		return this.bodyRuns.get();
	}

	/** Forgets the count. */
	public void reset() {
		this.bodyRuns.set(0);
	}

}
