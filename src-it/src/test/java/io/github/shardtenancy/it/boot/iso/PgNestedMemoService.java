package io.github.shardtenancy.it.boot.iso;

import java.util.List;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

import jakarta.persistence.EntityManager;
import jakarta.persistence.PersistenceContext;
import org.springframework.stereotype.Service;
import org.springframework.transaction.annotation.Transactional;

/** A read-write transaction that writes a memo, then runs a REQUIRES_NEW transaction of the same tenant that writes. */
@Service
public class PgNestedMemoService {

	@PersistenceContext
	private EntityManager entityManager;

	private final PgInnerMemoService inner;

	private final AtomicInteger runs = new AtomicInteger();

	private final List<RuntimeException> innerFailures = new CopyOnWriteArrayList<>();

	public PgNestedMemoService(PgInnerMemoService inner) {
		this.inner = inner;
	}

	/**
	 * Writes and flushes the memo {@code title + " outer"}, runs {@code beforeInner}, then writes
	 * {@code title + " inner"} in a REQUIRES_NEW transaction.
	 * @param title the memos' title prefix
	 * @param beforeInner run in the outer transaction, after its write, before the inner transaction begins
	 * @return what the inner transaction saw
	 */
	@Transactional
	public PgSeen writeThenRequiresNew(String title, Runnable beforeInner) {
		this.runs.incrementAndGet();
		this.entityManager.persist(new PgMemo(UUID.randomUUID(), title + " outer"));
		this.entityManager.flush();
		beforeInner.run();
		try {
			return this.inner.writeAndSee(title + " inner");
		}
		catch (RuntimeException ex) {
			this.innerFailures.add(ex);
			throw ex;
		}
	}

	/** @return the runs of {@link #writeThenRequiresNew}'s body */
	public int runs() {
		return this.runs.get();
	}

	/** @return what the inner transaction threw, in order */
	public List<RuntimeException> innerFailures() {
		return List.copyOf(this.innerFailures);
	}

	public void reset() {
		this.runs.set(0);
		this.innerFailures.clear();
	}

}
