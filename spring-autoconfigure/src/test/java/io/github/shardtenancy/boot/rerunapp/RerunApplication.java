package io.github.shardtenancy.boot.rerunapp;

import jakarta.persistence.EntityManagerFactory;
import io.github.shardtenancy.boot.testapp.RecordingRetryListener;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.context.annotation.Import;
import org.springframework.context.annotation.Bean;
import org.springframework.orm.jpa.JpaTransactionManager;

/**
 * The test application of the re-run safety tests: a tenant entity, an audit record written in its own transaction,
 * and a transaction manager the application defines itself (so Spring Boot's transaction manager customizers never
 * see it).
 */
@SpringBootApplication
@Import(RecordingRetryListener.class)
public class RerunApplication {

	@Bean
	JpaTransactionManager transactionManager(EntityManagerFactory entityManagerFactory) {
		return new JpaTransactionManager(entityManagerFactory);
	}

}
