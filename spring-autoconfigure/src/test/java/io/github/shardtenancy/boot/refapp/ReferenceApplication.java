package io.github.shardtenancy.boot.refapp;

import io.github.shardtenancy.testing.reference.PetType;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.persistence.autoconfigure.EntityScan;

/**
 * The reference-table test application: the test fixtures' reference entity (pet types) and tenant entity referencing
 * it by foreign key (pets), and their Spring Data repositories.
 */
@SpringBootApplication
@EntityScan(basePackageClasses = PetType.class)
public class ReferenceApplication {

}
