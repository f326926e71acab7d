package io.github.shardtenancy.boot.testapp;

import org.springframework.boot.autoconfigure.SpringBootApplication;

/** The test application: a note entity, its repository, transactional services and a retry listener. */
@SpringBootApplication
public class TestApplication {

}
