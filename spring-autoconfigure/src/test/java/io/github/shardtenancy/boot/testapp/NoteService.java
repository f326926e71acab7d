package io.github.shardtenancy.boot.testapp;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

import jakarta.persistence.EntityManager;
import jakarta.persistence.PersistenceContext;
import jakarta.persistence.EntityManagerFactory;
import org.springframework.orm.jpa.EntityManagerHolder;
import org.springframework.transaction.support.TransactionSynchronizationManager;
import org.springframework.stereotype.Service;
import org.springframework.transaction.annotation.Transactional;

/**
 * A transactional service that is not a repository: its exceptions are not translated by Spring. Counts how often
 * each body ran and records the transaction's entity manager (the Hibernate session) of each run.
 */
@Service
public class NoteService {

	@PersistenceContext
	private EntityManager entityManager;

	private final EntityManagerFactory entityManagerFactory;

	private final AtomicInteger runs = new AtomicInteger();

	private final List<Object> sessions = new ArrayList<>();

	public NoteService(EntityManagerFactory entityManagerFactory) {
		this.entityManagerFactory = entityManagerFactory;
	}

	@Transactional
	public Note persistAndFlush(String title) {
		record();
		Note note = new Note(title);
		this.entityManager.persist(note);
		this.entityManager.flush();
		return note;
	}

	@Transactional
	public Note persistAtCommit(String title) {
		record();
		Note note = new Note(title);
		this.entityManager.persist(note);
		return note;
	}

	@Transactional(readOnly = true)
	public long count() {
		record();
		return this.entityManager.createQuery("select count(n) from Note n", Long.class).getSingleResult();
	}

	@Transactional
	public void fail(RuntimeException failure) {
		record();
		throw failure;
	}

	private void record() {
		this.runs.incrementAndGet();
		synchronized (this.sessions) {
			EntityManagerHolder holder = (EntityManagerHolder) TransactionSynchronizationManager
				.getResource(this.entityManagerFactory);
			this.sessions.add(holder.getEntityManager());
		}
	}

	public int runs() {
		return this.runs.get();
	}

	/** @return the transactional entity manager of each run, in order (kept strongly, so identities are never reused) */
	public List<Object> sessions() {
		synchronized (this.sessions) {
			return List.copyOf(this.sessions);
		}
	}

	public void reset() {
		this.runs.set(0);
		synchronized (this.sessions) {
			this.sessions.clear();
		}
	}

}
