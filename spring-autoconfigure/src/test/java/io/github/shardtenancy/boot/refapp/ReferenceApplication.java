package io.github.shardtenancy.boot.refapp;

import org.springframework.boot.autoconfigure.SpringBootApplication;

/**
 * The reference-table test application: a reference entity (pet types), a tenant entity referencing it by foreign key
 * (pets), and their Spring Data repositories.
 */
@SpringBootApplication
public class ReferenceApplication {

}
