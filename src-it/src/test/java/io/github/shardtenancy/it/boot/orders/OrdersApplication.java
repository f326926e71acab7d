package io.github.shardtenancy.it.boot.orders;

import org.springframework.boot.autoconfigure.SpringBootApplication;

/** The H2 integration tests' application: orders, their repository and service, and an attempt recorder. */
@SpringBootApplication
public class OrdersApplication {

}
