package io.github.shardtenancy.benchmarks.app.domain;

import java.util.UUID;

import org.springframework.data.jpa.repository.JpaRepository;

/** Spring Data repository of order lines. */
public interface BenchOrderLineRepository extends JpaRepository<BenchOrderLine, UUID> {

}
