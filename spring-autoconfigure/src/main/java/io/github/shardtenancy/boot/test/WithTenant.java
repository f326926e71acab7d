package io.github.shardtenancy.boot.test;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Inherited;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Binds a tenant around a Spring test method, its {@code @BeforeEach} and {@code @AfterEach} methods and its
 * test-managed transaction ({@code @Transactional} on the test, as {@code @DataJpaTest} and {@code @JdbcTest} do):
 * the tenant is bound before Spring's {@code TransactionalTestExecutionListener} begins the transaction and unbound
 * after it has rolled it back. Read by {@link WithTenantTestExecutionListener}, which Spring's test context framework
 * registers by default (from {@code META-INF/spring.factories}).
 *
 * <p>On a method, it wins over one on the class; on a class, it applies to every test method, including those of
 * {@code @Nested} classes. The tenant id must follow the tenant id rule, or the test fails with
 * {@link io.github.shardtenancy.InvalidTenantIdException}.
 *
 * <pre>{@code
 * @DataJpaTest
 * @WithTenant(value = "acme", create = true)
 * class OrderRepositoryTests { ... }
 * }</pre>
 */
@Target({ ElementType.TYPE, ElementType.METHOD })
@Retention(RetentionPolicy.RUNTIME)
@Documented
@Inherited
public @interface WithTenant {

	/** @return the tenant bound around the test */
	String value();

	/**
	 * @return whether to create the tenant with the application context's {@link io.github.shardtenancy.TenantAdmin}
	 * (placed by the configured placement) when the directory does not know it yet; default {@code false}
	 */
	boolean create() default false;

}
