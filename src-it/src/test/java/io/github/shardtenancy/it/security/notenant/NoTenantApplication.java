package io.github.shardtenancy.it.security.notenant;

import io.github.shardtenancy.testing.reference.PetType;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.persistence.autoconfigure.EntityScan;

/**
 * A Spring Boot / Spring Data JPA application on the test fixtures' pets: pet types are reference data, pets tenant
 * data.
 */
@SpringBootApplication
@EntityScan(basePackageClasses = PetType.class)
public class NoTenantApplication {

}
