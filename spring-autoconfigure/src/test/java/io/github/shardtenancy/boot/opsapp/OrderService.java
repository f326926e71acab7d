package io.github.shardtenancy.boot.opsapp;

import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;

import org.springframework.stereotype.Service;
import org.springframework.transaction.annotation.Transactional;
import org.springframework.transaction.support.TransactionSynchronization;
import org.springframework.transaction.support.TransactionSynchronizationManager;

/**
 * Places an "order" (an audit row of its own) and, after the transaction commits, has the audit service write a
 * second row asynchronously: the pattern of side effects that must only happen after a commit.
 */
@Service
public class OrderService {

	private final AuditService audit;

	private final Map<String, CompletableFuture<String>> afterCommit = new ConcurrentHashMap<>();

	public OrderService(AuditService audit) {
		this.audit = audit;
	}

	@Transactional
	public void place(String order) {
		this.audit.record("order " + order);
		TransactionSynchronizationManager.registerSynchronization(new TransactionSynchronization() {

			@Override
			public void afterCommit() {
				OrderService.this.afterCommit.put(order, OrderService.this.audit.recordAsync("placed " + order));
			}

		});
	}

	/** @return the asynchronous audit write started after the order's commit */
	public CompletableFuture<String> afterCommitAudit(String order) {
		return this.afterCommit.get(order);
	}

}
