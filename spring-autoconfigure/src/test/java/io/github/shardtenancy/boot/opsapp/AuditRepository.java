package io.github.shardtenancy.boot.opsapp;

import java.util.UUID;

import org.springframework.data.jpa.repository.JpaRepository;

public interface AuditRepository extends JpaRepository<AuditEntry, UUID> {

	long countByMessage(String message);

}
