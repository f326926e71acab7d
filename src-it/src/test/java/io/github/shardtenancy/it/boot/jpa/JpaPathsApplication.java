package io.github.shardtenancy.it.boot.jpa;

import org.springframework.boot.autoconfigure.SpringBootApplication;

/**
 * A Spring Boot / Spring Data JPA application of the kind the library is for, used to drive every way Hibernate and
 * Spring start a transaction's work on PostgreSQL: derived, JPQL and native queries, streams, pages, pessimistic
 * locks, SEQUENCE, IDENTITY and UUID ids, JDBC batching, read-only and isolated transactions, and JdbcTemplate on the
 * tenant-routing DataSource.
 */
@SpringBootApplication
public class JpaPathsApplication {

}
