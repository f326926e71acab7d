package io.github.shardtenancy.boot.retry;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Inherited;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Declares that the automatic retry may run a transactional method again even when work independent of its own
 * transaction (a {@code REQUIRES_NEW} transaction, for example an audit record) committed inside the rejected
 * attempt: that work is then repeated, once per attempt, and the method accepts it (the work is idempotent, or a
 * duplicate is harmless). Without it, such an attempt ends in
 * {@link io.github.shardtenancy.UnsafeToRerunException} and is not run again.
 *
 * <p>Put it on the outermost {@code @Transactional} method (the one the retry wraps) or on its class; on an inner
 * method it has no effect. For {@link ShardTenancyRetry} the equivalent is {@link ShardTenancyRetry#safeToRerun()};
 * {@code shard-tenancy.retry.safe-to-rerun=true} makes it the application-wide default.
 */
@Target({ ElementType.METHOD, ElementType.TYPE })
@Retention(RetentionPolicy.RUNTIME)
@Inherited
@Documented
public @interface SafeToRerun {

}
