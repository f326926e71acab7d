package io.github.shardtenancy.boot.isoapp;

import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;

import io.github.shardtenancy.TenantContext;
import jakarta.persistence.EntityManager;
import jakarta.persistence.PersistenceContext;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.stereotype.Service;
import org.springframework.transaction.annotation.Isolation;
import org.springframework.transaction.annotation.Transactional;

/** Transactions of every isolation level, read-only transactions that try to write, and a nested REQUIRES_NEW. */
@Service
public class MemoService {

	static final String SEEN = "SELECT SESSION_ID(), ISOLATION_LEVEL FROM INFORMATION_SCHEMA.SESSIONS "
			+ "WHERE SESSION_ID = SESSION_ID()";

	@PersistenceContext
	private EntityManager entityManager;

	private final JdbcTemplate jdbc;

	private final InnerMemoService inner;

	private final AtomicInteger runs = new AtomicInteger();

	public MemoService(JdbcTemplate jdbc, InnerMemoService inner) {
		this.jdbc = jdbc;
		this.inner = inner;
	}

	@Transactional
	public Seen defaults() {
		return seen();
	}

	@Transactional(isolation = Isolation.READ_UNCOMMITTED)
	public Seen readUncommitted() {
		return seen();
	}

	@Transactional(isolation = Isolation.READ_COMMITTED)
	public Seen readCommitted() {
		return seen();
	}

	@Transactional(isolation = Isolation.REPEATABLE_READ)
	public Seen repeatableRead() {
		return seen();
	}

	@Transactional(isolation = Isolation.SERIALIZABLE)
	public Seen serializable() {
		return seen();
	}

	/** A serializable, read-only transaction that reads (which a read-only transaction may). */
	@Transactional(isolation = Isolation.SERIALIZABLE, readOnly = true)
	public Seen serializableReadOnly() {
		this.entityManager.createQuery("select count(m) from Memo m", Long.class).getSingleResult();
		return seen();
	}

	@Transactional
	public Memo write(String title) {
		this.runs.incrementAndGet();
		Memo memo = new Memo(UUID.randomUUID(), title);
		this.entityManager.persist(memo);
		return memo;
	}

	/** Persists and flushes a memo: a write whatever transaction this joins. */
	@Transactional
	public void writeAndFlush(String title) {
		this.entityManager.persist(new Memo(UUID.randomUUID(), title));
		this.entityManager.flush();
	}

	@Transactional(readOnly = true)
	public void nativeInsert(String title) {
		this.runs.incrementAndGet();
		this.entityManager.createNativeQuery("insert into iso_memo (id, tenant_id, title) values (?, ?, ?)")
			.setParameter(1, UUID.randomUUID())
			.setParameter(2, TenantContext.current())
			.setParameter(3, title)
			.executeUpdate();
	}

	@Transactional(readOnly = true)
	public void persistAndFlush(String title) {
		this.runs.incrementAndGet();
		this.entityManager.persist(new Memo(UUID.randomUUID(), title));
		this.entityManager.flush();
	}

	@Transactional(readOnly = true)
	public void jdbcInsert(String title) {
		this.runs.incrementAndGet();
		this.jdbc.update("insert into iso_memo (id, tenant_id, title) values (?, ?, ?)", UUID.randomUUID(),
				TenantContext.current(), title);
	}

	/**
	 * A serializable read-only transaction that runs a REQUIRES_NEW read-write transaction (which writes a memo) in
	 * the middle, then reads again.
	 * @return what the outer saw before, what the inner saw, what the outer saw after
	 */
	@Transactional(isolation = Isolation.SERIALIZABLE, readOnly = true)
	public List<Seen> outerAroundRequiresNew(String innerTitle) {
		List<Seen> seen = new ArrayList<>();
		seen.add(seen());
		seen.add(this.inner.writeAndSee(innerTitle));
		seen.add(seen());
		return seen;
	}

	/** @return the H2 session and isolation level of the current transaction's connection */
	@Transactional
	public Seen seen() {
		Object[] row = (Object[]) this.entityManager.createNativeQuery(SEEN).getSingleResult();
		return new Seen(((Number) row[0]).intValue(), (String) row[1]);
	}

	public int runs() {
		return this.runs.get();
	}

	public void reset() {
		this.runs.set(0);
	}

}
