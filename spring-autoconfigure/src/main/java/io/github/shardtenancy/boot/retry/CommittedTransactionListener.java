package io.github.shardtenancy.boot.retry;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import io.github.shardtenancy.retry.CommittedWork;
import org.springframework.transaction.TransactionExecution;
import org.springframework.transaction.TransactionExecutionListener;
import org.springframework.transaction.support.DefaultTransactionStatus;

/**
 * Tells {@link ShardTenancyRetry} which transactions committed during an attempt, so that an attempt whose
 * independent work committed is not silently run again. Counts every transaction that actually committed
 * ({@link TransactionExecution#isNewTransaction()}, {@code afterCommit} without a failure) and was not read-only; a
 * transaction that suspended none (the outermost one on the thread) counts only once more work begins after it,
 * since it may be the attempt's own transaction, whose commit is the attempt's success even when an after-commit
 * callback fails. Participating scopes, nested savepoints, rollbacks and failed commits are ignored. Outside an
 * attempt it does nothing.
 *
 * <p>The auto-configuration adds one instance to every {@code ConfigurableTransactionManager} bean of the
 * application; add it yourself to a transaction manager that is not a bean.
 *
 * <p>Thread-safe and stateless: what it records lives on the committing thread (descriptions are built once per transaction name).
 */
public final class CommittedTransactionListener implements TransactionExecutionListener {

	/** Most descriptions kept; transaction names are those of an application's transactional methods. */
	private static final int MAX_DESCRIPTIONS = 4096;

	/** The description per transaction name, built once per name. */
	private static final Map<String, String> DESCRIPTIONS = new ConcurrentHashMap<>();

	@Override
	public void beforeBegin(TransactionExecution transaction) {
		CommittedWork.workBegins();
	}

	@Override
	public void afterCommit(TransactionExecution transaction, Throwable commitFailure) {
		if (commitFailure != null || !transaction.isNewTransaction() || transaction.isReadOnly()) {
			return;
		}
		String description = describe(transaction.getTransactionName());
		boolean outermost = transaction instanceof DefaultTransactionStatus status
				&& status.getSuspendedResources() == null;
		if (outermost) {
			CommittedWork.recordPending(description);
		}
		else {
			CommittedWork.record(description);
		}
	}

	private static String describe(String name) {
		String description = DESCRIPTIONS.get(name);
		if (description == null) {
			description = "transaction " + (name.isEmpty() ? "(unnamed)" : "'" + name + "'");
			if (DESCRIPTIONS.size() < MAX_DESCRIPTIONS) {
				DESCRIPTIONS.put(name, description);
			}
		}
		return description;
	}

	@Override
	public boolean equals(Object other) {
		return other instanceof CommittedTransactionListener;
	}

	@Override
	public int hashCode() {
		return CommittedTransactionListener.class.hashCode();
	}

}
