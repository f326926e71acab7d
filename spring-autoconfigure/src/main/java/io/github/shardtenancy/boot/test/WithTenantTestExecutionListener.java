package io.github.shardtenancy.boot.test;

import java.lang.reflect.Method;

import io.github.shardtenancy.TenantAdmin;
import io.github.shardtenancy.TenantAlreadyExistsException;
import io.github.shardtenancy.TenantContext;
import org.jspecify.annotations.Nullable;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.test.context.TestContext;
import org.springframework.test.context.TestContextAnnotationUtils;
import org.springframework.test.context.support.AbstractTestExecutionListener;
import org.springframework.test.context.transaction.TransactionalTestExecutionListener;

/**
 * Binds the tenant of a {@link WithTenant} test for the test method, before Spring's
 * {@link TransactionalTestExecutionListener} begins the test-managed transaction, and restores the previous binding
 * (normally none) after the transaction has ended; creates the tenant first when asked. Registered by default
 * through {@code META-INF/spring.factories}; does nothing for a test without {@link WithTenant}. Stateless (the
 * binding is kept in the {@link TestContext}); the tenant is bound to the thread that runs the test method.
 */
public class WithTenantTestExecutionListener extends AbstractTestExecutionListener {

	/**
	 * This listener's order: {@code 3900}, after dependency injection ({@code 2000}) and before
	 * {@link TransactionalTestExecutionListener} ({@code 4000}) and {@code @Sql} scripts ({@code 5000}).
	 */
	public static final int ORDER = 3900;

	private static final String SCOPE = WithTenantTestExecutionListener.class.getName() + ".scope";

	@Override
	public int getOrder() {
		return ORDER;
	}

	/**
	 * Creates the tenant if asked and missing, then binds it.
	 * @throws io.github.shardtenancy.InvalidTenantIdException if the tenant id breaks the tenant id rule
	 * @throws io.github.shardtenancy.ShardTenancyException if creating the tenant fails
	 */
	@Override
	public void beforeTestMethod(TestContext testContext) {
		WithTenant withTenant = find(testContext.getTestMethod(), testContext.getTestClass());
		if (withTenant == null) {
			return;
		}
		if (withTenant.create()) {
			TenantAdmin admin = testContext.getApplicationContext().getBean(TenantAdmin.class);
			if (admin.find(withTenant.value()).isEmpty()) {
				try {
					admin.create(withTenant.value());
				}
				catch (TenantAlreadyExistsException ex) {
					// Created concurrently by another test of the same context: the tenant exists, as asked.
				}
			}
		}
		testContext.setAttribute(SCOPE, TenantContext.bind(withTenant.value()));
	}

	@Override
	public void afterTestMethod(TestContext testContext) {
		Object scope = testContext.removeAttribute(SCOPE);
		if (scope instanceof TenantContext.Scope bound) {
			bound.close();
		}
	}

	private static @Nullable WithTenant find(Method method, Class<?> testClass) {
		WithTenant onMethod = AnnotatedElementUtils.findMergedAnnotation(method, WithTenant.class);
		return (onMethod != null) ? onMethod : TestContextAnnotationUtils.findMergedAnnotation(testClass, WithTenant.class);
	}

}
