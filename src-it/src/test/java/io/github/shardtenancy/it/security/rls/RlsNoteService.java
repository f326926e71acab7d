package io.github.shardtenancy.it.security.rls;

import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

import jakarta.persistence.EntityManager;
import jakarta.persistence.PersistenceContext;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.stereotype.Service;
import org.springframework.transaction.annotation.Transactional;

/** Transactions as an application writes them; each counts its runs, so a test sees whether the retry ran it again. */
@Service
public class RlsNoteService {

	@PersistenceContext
	private EntityManager entityManager;

	private final RlsNoteRepository notes;

	private final JdbcTemplate jdbc;

	private final AtomicInteger runs = new AtomicInteger();

	RlsNoteService(RlsNoteRepository notes, JdbcTemplate jdbc) {
		this.notes = notes;
		this.jdbc = jdbc;
	}

	/** @return how many times a body ran since the last {@link #reset()} */
	public int runs() {
		return this.runs.get();
	}

	public void reset() {
		this.runs.set(0);
	}

	@Transactional
	public void add(String... bodies) {
		this.runs.incrementAndGet();
		for (String body : bodies) {
			this.notes.save(new RlsNote(body));
		}
	}

	/**
	 * A native TRUNCATE through the EntityManager, as dynamic SQL in a {@code DO} block: the connection layer refuses
	 * a plain {@code TRUNCATE} before it is sent, so this reaches the shard's own check.
	 */
	@Transactional
	public int truncateNative() {
		this.runs.incrementAndGet();
		return this.entityManager.createNativeQuery("DO $$ BEGIN EXECUTE 'TRUNCATE TABLE pg_rls_note'; END $$").executeUpdate();
	}

	/** A native DDL statement through the EntityManager. */
	@Transactional
	public int alterNative() {
		this.runs.incrementAndGet();
		return this.entityManager.createNativeQuery("DO $$ BEGIN EXECUTE 'ALTER TABLE pg_rls_note ADD COLUMN extra INT'; END $$").executeUpdate();
	}

	/** A DDL statement through JdbcTemplate, after a read of the tenant's notes. */
	@Transactional
	public void createIndexWithJdbc() {
		this.runs.incrementAndGet();
		this.notes.findAllNative();
		this.jdbc.execute("DO $$ BEGIN EXECUTE 'CREATE INDEX pg_rls_note_body ON pg_rls_note (body)'; END $$");
	}

	/** @return the bodies of every note a native query without tenant predicate returns */
	@Transactional(readOnly = true)
	public List<String> bodiesNative() {
		this.runs.incrementAndGet();
		return this.notes.findAllNative().stream().map(RlsNote::getBody).toList();
	}

	/** @return the count of a native query without tenant predicate, through JdbcTemplate */
	@Transactional(readOnly = true)
	public long countWithJdbc() {
		this.runs.incrementAndGet();
		Long count = this.jdbc.queryForObject("select count(*) from pg_rls_note", Long.class);
		return (count != null) ? count : -1;
	}

	/** @return the plan of a native query without tenant predicate, with sequential scans made unattractive */
	@Transactional
	public String planWithoutSequentialScans() {
		this.runs.incrementAndGet();
		this.jdbc.queryForObject("select set_config('enable_seqscan', 'off', true)", String.class);
		return String.join("\n", this.jdbc.queryForList("explain select * from pg_rls_note where body = 'x'",
				String.class));
	}

}
