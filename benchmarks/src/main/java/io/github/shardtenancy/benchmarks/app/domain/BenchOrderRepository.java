package io.github.shardtenancy.benchmarks.app.domain;

import java.util.UUID;

import org.springframework.data.jpa.repository.JpaRepository;

/** Spring Data repository of orders. */
public interface BenchOrderRepository extends JpaRepository<BenchOrder, UUID> {

}
