package io.github.shardtenancy.it.h2.domain;

import org.springframework.boot.autoconfigure.SpringBootApplication;

/** The H2 integration tests' application: orders, their repository and service, and an attempt recorder. */
@SpringBootApplication
public class OrdersApplication {

}
