package io.github.shardtenancy.boot.testapp;

import java.util.concurrent.atomic.AtomicInteger;

import jakarta.persistence.EntityManager;
import jakarta.persistence.PersistenceContext;
import org.springframework.stereotype.Service;
import org.springframework.transaction.annotation.Transactional;

/** A transactional bean called by {@link OuterService}; joins the outer transaction. */
@Service
public class InnerService {

	@PersistenceContext
	private EntityManager entityManager;

	private final AtomicInteger runs = new AtomicInteger();

	@Transactional
	public Note create(String title) {
		this.runs.incrementAndGet();
		Note note = new Note(title);
		this.entityManager.persist(note);
		this.entityManager.flush();
		return note;
	}

	/** Like {@link #create(String)}, running {@code beforeWrite} inside the transaction before the row is written. */
	@Transactional
	public Note createAfter(String title, Runnable beforeWrite) {
		this.runs.incrementAndGet();
		beforeWrite.run();
		Note note = new Note(title);
		this.entityManager.persist(note);
		this.entityManager.flush();
		return note;
	}

	public int runs() {
		return this.runs.get();
	}

	public void reset() {
		this.runs.set(0);
	}

}
