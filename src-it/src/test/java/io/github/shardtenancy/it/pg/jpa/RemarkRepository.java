package io.github.shardtenancy.it.pg.jpa;

import org.springframework.data.jpa.repository.JpaRepository;

/** Spring Data repository of remarks. */
public interface RemarkRepository extends JpaRepository<Remark, Long> {

}
