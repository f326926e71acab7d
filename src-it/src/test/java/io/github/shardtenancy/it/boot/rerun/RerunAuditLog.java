package io.github.shardtenancy.it.boot.rerun;

import io.github.shardtenancy.TenantContext;
import org.springframework.stereotype.Service;
import org.springframework.transaction.annotation.Propagation;
import org.springframework.transaction.annotation.Transactional;

/** Writes and reads audit records, each in its own transaction. */
@Service
public class RerunAuditLog {

	private final RerunAuditRepository records;

	public RerunAuditLog(RerunAuditRepository records) {
		this.records = records;
	}

	@Transactional(propagation = Propagation.REQUIRES_NEW)
	public void record(String what) {
		this.records.save(new RerunAudit(TenantContext.current(), what));
	}

	@Transactional(propagation = Propagation.REQUIRES_NEW, readOnly = true)
	public long count(String what) {
		return this.records.countByWhat(what);
	}

}
