package io.github.shardtenancy.it.boot.rerun;

import java.util.UUID;

import org.springframework.data.jpa.repository.JpaRepository;

public interface RerunEntryRepository extends JpaRepository<RerunEntry, UUID> {

}
