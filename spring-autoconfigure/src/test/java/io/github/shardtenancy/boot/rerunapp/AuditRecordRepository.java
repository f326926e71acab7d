package io.github.shardtenancy.boot.rerunapp;

import java.util.UUID;

import org.springframework.data.jpa.repository.JpaRepository;

public interface AuditRecordRepository extends JpaRepository<AuditRecord, UUID> {

	long countByWhat(String what);

}
