package io.github.shardtenancy.boot.isoapp;

import org.springframework.boot.autoconfigure.SpringBootApplication;

/**
 * The transaction characteristics test application: a memo entity, its repository, services declaring isolation
 * levels and read-only, and a web controller (open session in view on, as Boot's default).
 */
@SpringBootApplication
public class IsoApplication {

}
