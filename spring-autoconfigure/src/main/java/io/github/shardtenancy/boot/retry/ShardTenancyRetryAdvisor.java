package io.github.shardtenancy.boot.retry;

import java.util.Objects;

import org.aopalliance.aop.Advice;
import org.springframework.aop.Pointcut;
import org.springframework.aop.support.AbstractPointcutAdvisor;
import org.springframework.core.Ordered;

/**
 * The advisor of the automatic retry: {@link ShardTenancyRetryPointcut} with {@link ShardTenancyRetryInterceptor},
 * ordered outside the transaction interceptor ({@link #DEFAULT_ORDER} is of higher precedence than
 * {@code @EnableTransactionManagement}'s default {@link Ordered#LOWEST_PRECEDENCE}), so that each attempt is a whole
 * transaction. Register it as an infrastructure bean so that every auto-proxy creator applies it.
 *
 * <p>Thread-safe.
 */
public final class ShardTenancyRetryAdvisor extends AbstractPointcutAdvisor {

	/** The advisor's default order: {@code Ordered.LOWEST_PRECEDENCE - 100}, outside the transaction interceptor. */
	public static final int DEFAULT_ORDER = Ordered.LOWEST_PRECEDENCE - 100;

	private final transient ShardTenancyRetryPointcut pointcut = new ShardTenancyRetryPointcut();

	private final transient ShardTenancyRetryInterceptor interceptor;

	/**
	 * @param interceptor the advice; never {@code null}
	 */
	public ShardTenancyRetryAdvisor(ShardTenancyRetryInterceptor interceptor) {
		this.interceptor = Objects.requireNonNull(interceptor, "interceptor");
		setOrder(DEFAULT_ORDER);
	}

	@Override
	public Pointcut getPointcut() {
		return this.pointcut;
	}

	@Override
	public Advice getAdvice() {
		return this.interceptor;
	}

}
