package io.github.shardtenancy.it.boot.rerun;

import java.util.concurrent.atomic.AtomicInteger;

import io.github.shardtenancy.TenantContext;
import jakarta.persistence.EntityManager;
import jakarta.persistence.PersistenceContext;
import org.springframework.stereotype.Service;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.TransactionDefinition;
import org.springframework.transaction.annotation.Transactional;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * Outermost transactional methods that read the tenant's entries (the fence begin travels with that first select),
 * then do work in independent transactions, then write an entry. Counts how often the bodies ran.
 */
@Service
public class RerunEntryService {

	/** The name of the {@code REQUIRES_NEW} template's transactions. */
	public static final String AUDIT_TEMPLATE = "pg-audit-template";

	@PersistenceContext
	private EntityManager entityManager;

	private final RerunAuditLog audit;

	private final RerunAuditRepository records;

	private final TransactionTemplate requiresNew;

	private final AtomicInteger runs = new AtomicInteger();

	public RerunEntryService(RerunAuditLog audit, RerunAuditRepository records,
			PlatformTransactionManager transactionManager) {
		this.audit = audit;
		this.records = records;
		this.requiresNew = new TransactionTemplate(transactionManager);
		this.requiresNew.setPropagationBehavior(TransactionDefinition.PROPAGATION_REQUIRES_NEW);
		this.requiresNew.setName(AUDIT_TEMPLATE);
	}

	/** Audits in a {@code REQUIRES_NEW} bean, then writes the entry. */
	@Transactional
	public void addAudited(String title) {
		begin();
		this.audit.record(title);
		persistAndFlush(title);
	}

	/** Audits in a {@code REQUIRES_NEW} {@link TransactionTemplate}, then writes the entry. */
	@Transactional
	public void addAuditedWithTemplate(String title) {
		begin();
		this.requiresNew.executeWithoutResult((status) -> this.records.save(new RerunAudit(TenantContext.current(),
				title)));
		persistAndFlush(title);
	}

	/** Reads the audit in a read-only {@code REQUIRES_NEW} transaction, then writes the entry. */
	@Transactional
	public long addAfterReadOnlyLookup(String title) {
		begin();
		long audited = this.audit.count(title);
		persistAndFlush(title);
		return audited;
	}

	/** Writes the entry, with nothing else. */
	@Transactional
	public void add(String title) {
		begin();
		persistAndFlush(title);
	}

	private void begin() {
		this.runs.incrementAndGet();
		this.entityManager.createQuery("select count(e) from RerunEntry e", Long.class).getSingleResult();
	}

	void persistAndFlush(String title) {
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
