package io.github.shardtenancy.boot.rerunapp;

import java.util.concurrent.atomic.AtomicInteger;

import io.github.shardtenancy.TenantContext;
import io.github.shardtenancy.boot.retry.SafeToRerun;
import jakarta.persistence.EntityManager;
import jakarta.persistence.PersistenceContext;
import org.springframework.stereotype.Service;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.TransactionDefinition;
import org.springframework.transaction.annotation.Transactional;
import org.springframework.transaction.support.TransactionSynchronization;
import org.springframework.transaction.support.TransactionSynchronizationManager;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * Outermost transactional methods that write an entry of the tenant (rejected while it is frozen) after other work
 * in independent transactions. Counts how often the bodies ran.
 */
@Service
public class EntryService {

	/** The name of the {@code REQUIRES_NEW} template's transactions. */
	public static final String AUDIT_TEMPLATE = "audit-template";

	@PersistenceContext
	private EntityManager entityManager;

	private final AuditLog audit;

	private final AuditRecordRepository records;

	private final TransactionTemplate requiresNew;

	private final AtomicInteger runs = new AtomicInteger();

	public EntryService(AuditLog audit, AuditRecordRepository records, PlatformTransactionManager transactionManager) {
		this.audit = audit;
		this.records = records;
		this.requiresNew = new TransactionTemplate(transactionManager);
		this.requiresNew.setPropagationBehavior(TransactionDefinition.PROPAGATION_REQUIRES_NEW);
		this.requiresNew.setName(AUDIT_TEMPLATE);
	}

	/** Audits in a {@code REQUIRES_NEW} bean, then writes the entry. */
	@Transactional
	public void addAudited(String title) {
		this.runs.incrementAndGet();
		this.audit.record(title);
		persistAndFlush(title);
	}

	/** Like {@link #addAudited(String)}, declared safe to re-run: a retry repeats the audit record. */
	@Transactional
	@SafeToRerun
	public void addAuditedSafeToRerun(String title) {
		this.runs.incrementAndGet();
		this.audit.record(title);
		persistAndFlush(title);
	}

	/** Audits in a {@code REQUIRES_NEW} {@link TransactionTemplate}, then writes the entry. */
	@Transactional
	public void addAuditedWithTemplate(String title) {
		this.runs.incrementAndGet();
		this.requiresNew.executeWithoutResult((status) -> this.records.save(new AuditRecord(TenantContext.current(),
				title)));
		persistAndFlush(title);
	}

	/** Reads the audit in a read-only {@code REQUIRES_NEW} transaction, then writes the entry. */
	@Transactional
	public long addAfterReadOnlyLookup(String title) {
		this.runs.incrementAndGet();
		long audited = this.audit.count(title);
		persistAndFlush(title);
		return audited;
	}

	/**
	 * Writes an audit record in this method's own transaction and, once that committed, the entry in a
	 * {@code REQUIRES_NEW} transaction started by an after-commit callback: while the tenant is frozen, that one is
	 * rejected and the rejection surfaces from this method's commit.
	 */
	@Transactional
	public void auditThenEntryAfterCommit(String title) {
		this.runs.incrementAndGet();
		this.records.save(new AuditRecord(TenantContext.current(), title));
		TransactionSynchronizationManager.registerSynchronization(new TransactionSynchronization() {

			@Override
			public void afterCommit() {
				EntryService.this.requiresNew.executeWithoutResult((status) -> persistAndFlush(title));
			}

		});
	}

	/** Writes the entry, with nothing else. */
	@Transactional
	public void add(String title) {
		this.runs.incrementAndGet();
		persistAndFlush(title);
	}

	private void persistAndFlush(String title) {
		this.entityManager.persist(new Entry(title));
		this.entityManager.flush();
	}

	public int runs() {
		return this.runs.get();
	}

	public void reset() {
		this.runs.set(0);
	}

}
