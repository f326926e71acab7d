package io.github.shardtenancy.it.boot.rerun;

import java.util.concurrent.atomic.AtomicInteger;

import io.github.shardtenancy.boot.retry.SafeToRerun;
import jakarta.persistence.EntityManager;
import jakarta.persistence.PersistenceContext;
import org.springframework.stereotype.Service;
import org.springframework.transaction.annotation.Transactional;

/** A service declared safe to re-run as a whole (on its class): a retry repeats its audit records. */
@Service
@SafeToRerun
public class RerunnableEntryService {

	@PersistenceContext
	private EntityManager entityManager;

	private final RerunAuditLog audit;

	private final AtomicInteger runs = new AtomicInteger();

	public RerunnableEntryService(RerunAuditLog audit) {
		this.audit = audit;
	}

	/** Audits in a {@code REQUIRES_NEW} bean, then writes the entry. */
	@Transactional
	public void addAudited(String title) {
		this.runs.incrementAndGet();
		this.audit.record(title);
		this.entityManager.persist(new RerunEntry(title));
		this.entityManager.flush();
	}

	public int runs() {
		return this.runs.get();
	}

	public void reset() {
		this.runs.set(0);
	}

}
