package io.github.shardtenancy.it.boot.rerun;

import java.util.UUID;

import org.springframework.data.jpa.repository.JpaRepository;

public interface RerunAuditRepository extends JpaRepository<RerunAudit, UUID> {

	long countByWhat(String what);

}
