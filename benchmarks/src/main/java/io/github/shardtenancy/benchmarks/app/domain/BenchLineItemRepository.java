package io.github.shardtenancy.benchmarks.app.domain;

import org.springframework.data.jpa.repository.JpaRepository;

/** Spring Data repository of order items. */
public interface BenchLineItemRepository extends JpaRepository<BenchLineItem, BenchLineItem.Key> {
}
