package io.github.shardtenancy.boot.retry;

import java.lang.reflect.Method;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;

import org.aopalliance.intercept.MethodInterceptor;
import org.aopalliance.intercept.MethodInvocation;
import org.springframework.aop.ProxyMethodInvocation;
import org.springframework.aop.support.AopUtils;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.util.function.SingletonSupplier;

/**
 * The advice of the automatic retry: runs the intercepted method through {@link ShardTenancyRetry}. Each attempt
 * proceeds down a fresh copy of the interceptor chain, so the transaction interceptor (ordered inside this one) opens
 * a new transaction, with a new persistence context and shard connection, for every attempt. Checked exceptions of
 * the method pass through unchanged. A method annotated {@link SafeToRerun} (or declared in a class so annotated) is
 * run again even when independent work committed inside a rejected attempt.
 *
 * <p>Thread-safe.
 */
public final class ShardTenancyRetryInterceptor implements MethodInterceptor {

	/** Most method names kept; an application's advised methods are far fewer. */
	private static final int MAX_NAMES = 4096;

	private final Supplier<ShardTenancyRetry> retry;

	/** The work's name per advised method, as Spring's {@code Retryable#getName()} reports it. */
	private final Map<Method, String> names = new ConcurrentHashMap<>();

	/**
	 * @param retry supplies the retry on first use (lazily, so that the advisor can be created before the router and
	 * the shards); never {@code null}
	 */
	public ShardTenancyRetryInterceptor(Supplier<ShardTenancyRetry> retry) {
		this.retry = SingletonSupplier.of(Objects.requireNonNull(retry, "retry"));
	}

	/**
	 * @throws io.github.shardtenancy.RetriesExhaustedException if every attempt the budget allowed was rejected
	 * @throws io.github.shardtenancy.UnsafeToRerunException if an attempt failed retryably after work independent of
	 * its own transaction committed inside it, and the method is not {@link SafeToRerun}
	 * @throws io.github.shardtenancy.ShardTenancyException the library's typed error found in a non-retryable
	 * failure's cause chain
	 * @throws Throwable whatever the method threw, if it was not retryable
	 */
	@Override
	public Object invoke(MethodInvocation invocation) throws Throwable {
		if (ShardTenancyRetry.isNested()) {
			return invocation.proceed();
		}
		if (!(invocation instanceof ProxyMethodInvocation proxyInvocation)) {
			throw new IllegalStateException("Cannot retry " + invocation.getMethod()
					+ ": the invocation is not a ProxyMethodInvocation and cannot be repeated");
		}
		return this.retry.get().proceed(name(invocation.getMethod()), () -> isSafeToRerun(invocation),
				() -> proxyInvocation.invocableClone().proceed());
	}

	/** @return {@code SimpleClassName.method}, built once per method */
	private String name(Method method) {
		String name = this.names.get(method);
		if (name == null) {
			name = method.getDeclaringClass().getSimpleName() + "." + method.getName();
			if (this.names.size() < MAX_NAMES) {
				this.names.put(method, name);
			}
		}
		return name;
	}

	private static boolean isSafeToRerun(MethodInvocation invocation) {
		Object target = invocation.getThis();
		Class<?> targetClass = target != null ? AopUtils.getTargetClass(target) : null;
		Method method = AopUtils.getMostSpecificMethod(invocation.getMethod(), targetClass);
		return AnnotatedElementUtils.hasAnnotation(method, SafeToRerun.class)
				|| AnnotatedElementUtils.hasAnnotation(invocation.getMethod(), SafeToRerun.class)
				|| (targetClass != null && AnnotatedElementUtils.hasAnnotation(targetClass, SafeToRerun.class))
				|| AnnotatedElementUtils.hasAnnotation(invocation.getMethod().getDeclaringClass(), SafeToRerun.class);
	}

}
