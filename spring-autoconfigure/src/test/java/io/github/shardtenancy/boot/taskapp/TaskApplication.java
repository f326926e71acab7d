package io.github.shardtenancy.boot.taskapp;

import io.github.shardtenancy.boot.testapp.RecordingRetryListener;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.context.annotation.Import;

/**
 * The application of the {@code TransactionalTenantTasks} tests: a tenant entity on the {@code pg_note} table of the
 * test fixtures (so the same application runs on H2 and PostgreSQL), its repository, a {@code @Transactional} service
 * and a retry listener.
 */
@SpringBootApplication
@Import(RecordingRetryListener.class)
public class TaskApplication {

}
