package io.github.shardtenancy.it.boot.iso;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import io.github.shardtenancy.TenantContext;
import jakarta.persistence.EntityManager;
import jakarta.persistence.PersistenceContext;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.stereotype.Service;
import org.springframework.transaction.annotation.Isolation;
import org.springframework.transaction.annotation.Transactional;

/**
 * Transactions of every isolation level, read-only transactions that try to write, a nested REQUIRES_NEW, and a write
 * skew between two serializable transactions.
 */
@Service
public class PgMemoService {

	@PersistenceContext
	private EntityManager entityManager;

	private final JdbcTemplate jdbc;

	private final PgInnerMemoService inner;

	private final AtomicInteger runs = new AtomicInteger();

	private final Map<String, AtomicInteger> skewAttempts = new ConcurrentHashMap<>();

	public PgMemoService(JdbcTemplate jdbc, PgInnerMemoService inner) {
		this.jdbc = jdbc;
		this.inner = inner;
	}

	@Transactional
	public PgSeen defaults() {
		return seen();
	}

	@Transactional(isolation = Isolation.READ_UNCOMMITTED)
	public PgSeen readUncommitted() {
		return seen();
	}

	@Transactional(isolation = Isolation.READ_COMMITTED)
	public PgSeen readCommitted() {
		return seen();
	}

	@Transactional(isolation = Isolation.REPEATABLE_READ)
	public PgSeen repeatableRead() {
		return seen();
	}

	@Transactional(isolation = Isolation.SERIALIZABLE)
	public PgSeen serializable() {
		return seen();
	}

	@Transactional(readOnly = true)
	public PgSeen readOnly() {
		return seen();
	}

	/** A serializable, read-only transaction whose first statement is a JPQL query. */
	@Transactional(isolation = Isolation.SERIALIZABLE, readOnly = true)
	public PgSeen serializableReadOnly() {
		this.entityManager.createQuery("select count(m) from PgMemo m", Long.class).getSingleResult();
		return seen();
	}

	@Transactional
	public PgMemo write(String title) {
		PgMemo memo = new PgMemo(UUID.randomUUID(), title);
		this.entityManager.persist(memo);
		return memo;
	}

	@Transactional(readOnly = true)
	public void nativeInsert(String title) {
		this.runs.incrementAndGet();
		this.entityManager.createNativeQuery("insert into pg_iso_memo (id, tenant_id, title) values (?, ?, ?)")
			.setParameter(1, UUID.randomUUID())
			.setParameter(2, TenantContext.current())
			.setParameter(3, title)
			.executeUpdate();
	}

	@Transactional(readOnly = true)
	public void persistAndFlush(String title) {
		this.runs.incrementAndGet();
		this.entityManager.persist(new PgMemo(UUID.randomUUID(), title));
		this.entityManager.flush();
	}

	@Transactional(readOnly = true)
	public void jdbcInsert(String title) {
		this.runs.incrementAndGet();
		this.jdbc.update("insert into pg_iso_memo (id, tenant_id, title) values (?, ?, ?)", UUID.randomUUID(),
				TenantContext.current(), title);
	}

	/**
	 * A serializable read-only transaction that first runs a REQUIRES_NEW read-write transaction (which writes a
	 * memo), before any statement of its own, then reports what it runs in.
	 * @return what the inner saw, then what the outer saw
	 */
	@Transactional(isolation = Isolation.SERIALIZABLE, readOnly = true)
	public List<PgSeen> requiresNewFirst(String innerTitle) {
		List<PgSeen> seen = new ArrayList<>();
		seen.add(this.inner.writeAndSee(innerTitle));
		seen.add(seen());
		return seen;
	}

	/**
	 * Write skew: counts the tenant's memos, waits (on its first attempt only) until the other transaction has
	 * counted too, then writes a memo named after the count. Of two such serializable transactions, PostgreSQL fails
	 * one with a serialization failure; the retry runs it again.
	 */
	@Transactional(isolation = Isolation.SERIALIZABLE)
	public void countThenWrite(String title, CyclicBarrier bothCounted) throws Exception {
		int attempt = this.skewAttempts.computeIfAbsent(title, t -> new AtomicInteger()).incrementAndGet();
		long count = this.entityManager.createQuery("select count(m) from PgMemo m", Long.class).getSingleResult();
		if (attempt == 1) {
			bothCounted.await(60, TimeUnit.SECONDS);
		}
		this.entityManager.persist(new PgMemo(UUID.randomUUID(), title + " after " + count));
		this.entityManager.flush();
	}

	/** @return the attempts of {@link #countThenWrite} with that title */
	public int skewAttempts(String title) {
		AtomicInteger attempts = this.skewAttempts.get(title);
		return attempts != null ? attempts.get() : 0;
	}

	/** @return what the current transaction's connection runs in */
	@Transactional
	public PgSeen seen() {
		return PgSeen.of((Object[]) this.entityManager.createNativeQuery(PgSeen.QUERY).getSingleResult());
	}

	public int runs() {
		return this.runs.get();
	}

	public void reset() {
		this.runs.set(0);
	}

}
