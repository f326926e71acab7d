package io.github.shardtenancy.it.boot.iso;

import org.springframework.boot.autoconfigure.SpringBootApplication;

/**
 * A Spring Boot / Spring Data JPA application on the PostgreSQL shards for transaction characteristics: services
 * declaring isolation levels and read-only, and a web controller for open session in view.
 */
@SpringBootApplication
public class IsoPgApplication {

}
