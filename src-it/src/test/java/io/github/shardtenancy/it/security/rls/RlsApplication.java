package io.github.shardtenancy.it.security.rls;

import org.springframework.boot.autoconfigure.SpringBootApplication;

/**
 * A Spring Boot / Spring Data JPA application whose shard connections may use a role that row-level security applies
 * to, for the tests of what a PostgreSQL shard refuses across tenants.
 */
@SpringBootApplication
public class RlsApplication {

}
