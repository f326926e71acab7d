package io.github.shardtenancy.it.boot.jpa;

import java.io.IOException;
import java.io.StringReader;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.sql.PreparedStatement;
import java.sql.Savepoint;
import java.util.Collections;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.ToIntFunction;
import java.util.stream.Stream;

import io.github.shardtenancy.TenantContext;
import jakarta.persistence.EntityManager;
import jakarta.persistence.PersistenceContext;
import org.hibernate.ScrollMode;
import org.hibernate.ScrollableResults;
import org.hibernate.Session;
import org.postgresql.PGConnection;
import org.springframework.data.domain.Page;
import org.springframework.data.domain.PageRequest;
import org.springframework.data.domain.Sort;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.stereotype.Service;
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

	/** First statement: Hibernate's isolated work on a second connection, fetching TABLE ids; then the inserts. */
	@Transactional
	public List<Badge> award(List<String> names) {
		this.bodyRuns.incrementAndGet();
		List<Badge> badges = names.stream().map(Badge::new).toList();
		badges.forEach(this.entityManager::persist);
		return badges;
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

	/**
	 * First statement: JdbcTemplate's prepared statement with one argument per id ({@code in (?, ?, ...)}).
	 * @return how many of the ids are the tenant's tickets
	 */
	@Transactional
	public long jdbcCountOfIds(List<Long> ids) {
		this.bodyRuns.incrementAndGet();
		return this.jdbc.queryForObject("select count(*) from pg_ticket where id in ("
				+ String.join(",", Collections.nCopies(ids.size(), "?")) + ")", Long.class, ids.toArray());
	}

	/** A read-only transaction's first query reports what it runs in. */
	@Transactional(readOnly = true)
	public Seen seeReadOnly() {
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

	/**
	 * First statement: {@code COPY ... FROM STDIN} through the driver's own connection (a bulk load as applications
	 * write it: {@code unwrap(PGConnection.class).getCopyAPI()}).
	 * @return rows copied
	 */
	@Transactional
	public long copyParcels(List<String> labels) {
		this.bodyRuns.incrementAndGet();
		StringBuilder data = new StringBuilder();
		for (String label : labels) {
			data.append(UUID.randomUUID()).append('\t').append(TenantContext.current())
				.append('\t').append(label).append('\n');
		}
		return this.entityManager.unwrap(Session.class).doReturningWork(connection -> {
			try {
				return connection.unwrap(PGConnection.class).getCopyAPI()
					.copyIn("COPY pg_parcel (id, tenant_id, label) FROM STDIN", new StringReader(data.toString()));
			}
			catch (IOException ex) {
				throw new UncheckedIOException(ex);
			}
		});
	}

	/**
	 * First statement: {@code COPY (select ...) TO STDOUT} through the driver's own connection.
	 * @return the tenant's ticket titles, as the copy wrote them
	 */
	@Transactional(readOnly = true)
	public List<String> copyTitles(String tenant) {
		this.bodyRuns.incrementAndGet();
		return this.entityManager.unwrap(Session.class).doReturningWork(connection -> {
			StringWriter out = new StringWriter();
			try {
				connection.unwrap(PGConnection.class).getCopyAPI()
					.copyOut("COPY (SELECT title FROM pg_ticket WHERE tenant_id = '" + tenant.replace("'", "''")
							+ "' ORDER BY priority) TO STDOUT", out);
			}
			catch (IOException ex) {
				throw new UncheckedIOException(ex);
			}
			return out.toString().lines().toList();
		});
	}

	/** First statement: a JPQL bulk update. */
	@Transactional
	public int bumpAll(int by) {
		this.bodyRuns.incrementAndGet();
		return this.tickets.bumpAll(by);
	}

	/**
	 * Writes one of its own tickets (the transaction's first write, which fences the tenant), then runs a native write
	 * that touches another tenant's row or writes a row for another tenant.
	 */
	@Transactional
	public void writeOwnThen(String title, ToIntFunction<TicketRepository> otherWrite) {
		this.bodyRuns.incrementAndGet();
		this.tickets.saveAndFlush(new Ticket(title, 1));
		otherWrite.applyAsInt(this.tickets);
	}

	/**
	 * First statement: a JDBC savepoint; a row written after it is rolled back to it, then a ticket is opened.
	 * @return what the transaction sees after the rollback to the savepoint
	 */
	@Transactional
	public Seen savepointFirst(String undone, String kept) {
		this.bodyRuns.incrementAndGet();
		Session session = this.entityManager.unwrap(Session.class);
		session.doWork(connection -> {
			Savepoint savepoint = connection.setSavepoint();
			try (PreparedStatement insert = connection.prepareStatement("insert into pg_ticket "
					+ "(id, tenant_id, title, priority) values (nextval('pg_ticket_seq'), ?, ?, 1)")) {
				insert.setString(1, TenantContext.current());
				insert.setString(2, undone);
				insert.executeUpdate();
			}
			connection.rollback(savepoint);
		});
		this.tickets.saveAndFlush(new Ticket(kept, 1));
		return see();
	}

	/**
	 * First statement: a query read as a stream in batches of a fetch size; for each ticket read, a remark is written
	 * and flushed while the stream is still open.
	 * @return the remarks written
	 */
	@Transactional
	public List<Remark> remarkWhileStreaming() {
		this.bodyRuns.incrementAndGet();
		try (Stream<Ticket> all = this.tickets.streamAll()) {
			return all.map(t -> this.remarks.saveAndFlush(new Remark("on " + t.getTitle()))).toList();
		}
	}

	/**
	 * First statement: a scrollable (insensitive) query, scrolled to its last row and back.
	 * @return the titles of the last and the first row, and the row count
	 */
	@Transactional(readOnly = true)
	public List<String> scrollLastAndFirst() {
		this.bodyRuns.incrementAndGet();
		try (ScrollableResults<Ticket> scroll = this.entityManager.unwrap(Session.class)
			.createSelectionQuery("from Ticket t order by t.id", Ticket.class)
			.scroll(ScrollMode.SCROLL_INSENSITIVE)) {
			scroll.last();
			String last = scroll.get().getTitle();
			int count = scroll.getRowNumber() + 1;
			scroll.first();
			return List.of(last, scroll.get().getTitle(), String.valueOf(count));
		}
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
