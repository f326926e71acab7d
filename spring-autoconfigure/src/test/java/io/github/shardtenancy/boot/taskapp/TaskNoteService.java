package io.github.shardtenancy.boot.taskapp;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import jakarta.persistence.EntityManager;
import jakarta.persistence.PersistenceContext;
import org.springframework.stereotype.Service;
import org.springframework.transaction.annotation.Transactional;
import org.springframework.transaction.support.TransactionSynchronizationManager;

/**
 * A {@code @Transactional} service (REQUIRED, the default), as an application's day-end service would be. Records,
 * per call, whether it joined a transaction that was already active (it then holds the caller's resources).
 */
@Service
public class TaskNoteService {

	@PersistenceContext
	private EntityManager entityManager;

	private final Map<String, Boolean> joined = new ConcurrentHashMap<>();

	/** Persists a note of the bound tenant, flushed at the commit of the transaction it runs in. */
	@Transactional
	public TaskNote write(String text) {
		// A transaction this method began itself is named after it; a joined one keeps the name of its beginner.
		String name = TransactionSynchronizationManager.getCurrentTransactionName();
		this.joined.put(text, TransactionSynchronizationManager.isActualTransactionActive()
				&& (name == null || !name.endsWith("TaskNoteService.write")));
		TaskNote note = new TaskNote(text);
		this.entityManager.persist(note);
		return note;
	}

	/** @return whether the call that wrote {@code text} ran in a transaction begun before it (not its own) */
	public boolean joined(String text) {
		return this.joined.getOrDefault(text, false);
	}

}
