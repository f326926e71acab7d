package io.github.shardtenancy.it.boot.rerun;

import org.springframework.boot.autoconfigure.SpringBootApplication;

/**
 * A Spring Boot / Spring Data JPA application on the PostgreSQL shards with an audit log written in its own
 * transactions, for the re-run safety of the automatic retry. Its transaction manager is Spring Boot's.
 */
@SpringBootApplication
public class RerunApplication {

}
