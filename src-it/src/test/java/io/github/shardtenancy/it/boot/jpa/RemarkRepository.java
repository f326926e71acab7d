package io.github.shardtenancy.it.boot.jpa;

import org.springframework.data.jpa.repository.JpaRepository;

/** Spring Data repository of remarks. */
public interface RemarkRepository extends JpaRepository<Remark, Long> {

}
