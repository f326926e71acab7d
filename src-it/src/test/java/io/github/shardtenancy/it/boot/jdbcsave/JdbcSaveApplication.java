package io.github.shardtenancy.it.boot.jdbcsave;

import org.springframework.boot.autoconfigure.SpringBootApplication;

/**
 * A Spring Boot application whose repository is plain JDBC ({@code JdbcTemplate} on the tenant-routing
 * {@code DataSource}), saving with the shape a port from a single database often has: "a new object gets its id,
 * then is inserted; an object with an id is updated" ({@link OwnerRepository}). Its services are
 * {@code @Transactional}, so the automatic retry runs each call again when the fence rejects it.
 */
@SpringBootApplication
public class JdbcSaveApplication {

}
