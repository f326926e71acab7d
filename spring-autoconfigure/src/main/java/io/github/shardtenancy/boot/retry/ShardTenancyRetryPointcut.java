package io.github.shardtenancy.boot.retry;

import java.lang.reflect.Method;

import org.springframework.aop.support.StaticMethodMatcherPointcut;
import org.springframework.transaction.annotation.AnnotationTransactionAttributeSource;
import org.springframework.transaction.interceptor.TransactionAttributeSource;
import org.springframework.util.ClassUtils;

/**
 * Matches the methods the automatic retry wraps: every method the transaction interceptor treats as transactional
 * (Spring's or Jakarta's {@code @Transactional}, on the method or its class, found as Spring's own transaction
 * support finds it), and every method of a Spring Data repository (a bean implementing
 * {@code org.springframework.data.repository.Repository}), when Spring Data is on the class path. Only the outermost
 * of nested matched calls actually retries (see {@link ShardTenancyRetry}).
 *
 * <p>Thread-safe.
 */
public final class ShardTenancyRetryPointcut extends StaticMethodMatcherPointcut {

	private static final boolean SPRING_DATA_PRESENT = ClassUtils.isPresent(
			"org.springframework.data.repository.Repository", ShardTenancyRetryPointcut.class.getClassLoader());

	private final TransactionAttributeSource transactionAttributes = new AnnotationTransactionAttributeSource();

	@Override
	public boolean matches(Method method, Class<?> targetClass) {
		if (targetClass != null && SPRING_DATA_PRESENT && SpringData.isRepository(targetClass)) {
			return true;
		}
		return this.transactionAttributes.getTransactionAttribute(method, targetClass) != null;
	}

	/** Keeps the Spring Data type out of the pointcut's own signature, so it loads without Spring Data. */
	private static final class SpringData {

		static boolean isRepository(Class<?> targetClass) {
			return org.springframework.data.repository.Repository.class.isAssignableFrom(targetClass);
		}

	}

}
