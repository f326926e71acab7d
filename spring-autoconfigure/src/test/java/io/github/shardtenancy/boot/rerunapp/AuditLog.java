package io.github.shardtenancy.boot.rerunapp;

import io.github.shardtenancy.TenantContext;
import org.springframework.stereotype.Service;
import org.springframework.transaction.annotation.Propagation;
import org.springframework.transaction.annotation.Transactional;

/** Writes and reads audit records, each in its own transaction (as audit logs commonly do). */
@Service
public class AuditLog {

	private final AuditRecordRepository records;

	public AuditLog(AuditRecordRepository records) {
		this.records = records;
	}

	@Transactional(propagation = Propagation.REQUIRES_NEW)
	public void record(String what) {
		this.records.save(new AuditRecord(TenantContext.current(), what));
	}

	@Transactional(propagation = Propagation.REQUIRES_NEW, readOnly = true)
	public long count(String what) {
		return this.records.countByWhat(what);
	}

}
