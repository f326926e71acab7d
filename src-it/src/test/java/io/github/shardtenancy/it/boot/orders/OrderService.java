package io.github.shardtenancy.it.boot.orders;

import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.IntConsumer;

import io.github.shardtenancy.TenantContext;
import jakarta.persistence.EntityManager;
import jakarta.persistence.PersistenceContext;
import org.springframework.stereotype.Service;
import org.springframework.transaction.annotation.Transactional;

/**
 * Transactional order operations as an application writes them. Counts how often a method body ran (a transaction
 * rejected at begin never runs it) and lets a test act in the middle of a body, after its first statement.
 */
@Service
public class OrderService {

	@PersistenceContext
	private EntityManager entityManager;

	private final AtomicInteger bodyRuns = new AtomicInteger();

	private final List<SessionView> views = new ArrayList<>();

	private volatile IntConsumer afterFirstStatement = (run) -> {
	};

	/** What a statement saw: the routed tenant and directory version bound on the connection, and the shard. */
	public record SessionView(String tenant, Long version, String shard) {
	}

	/**
	 * Places an order built inside the transaction.
	 * @param customer the customer
	 * @return the new order's id
	 */
	@Transactional
	public UUID place(String customer) {
		this.bodyRuns.incrementAndGet();
		PurchaseOrder order = new PurchaseOrder(customer, 100);
		this.entityManager.persist(order);
		return order.getId();
	}

	/**
	 * Persists an order the caller built, outside the transaction (so the same instance crosses attempts).
	 * @param order a new order
	 */
	@Transactional
	public void persist(PurchaseOrder order) {
		this.bodyRuns.incrementAndGet();
		this.entityManager.persist(order);
	}

	/**
	 * Reads the session variables with its first statement, gives the test a chance to act, then places an order and
	 * flushes.
	 * @param customer the customer
	 * @return what the first statement saw
	 */
	@Transactional
	public SessionView seeThenPlace(String customer) {
		int run = this.bodyRuns.incrementAndGet();
		SessionView view = see();
		synchronized (this.views) {
			this.views.add(view);
		}
		this.afterFirstStatement.accept(run);
		this.entityManager.persist(new PurchaseOrder(customer, 100));
		this.entityManager.flush();
		return view;
	}

	/** @return what a statement of this transaction sees */
	@Transactional(readOnly = true)
	public SessionView see() {
		Object[] row = (Object[]) this.entityManager
			.createNativeQuery("SELECT @SHARD_TENANT, @SHARD_VERSION, (SELECT shard_id FROM shard_fence_identity)")
			.getSingleResult();
		return new SessionView((String) row[0], row[1] == null ? null : ((Number) row[1]).longValue(),
				(String) row[2]);
	}

	/**
	 * Places an order, flushes it, then (wrongly) binds another tenant inside the same transaction.
	 * @param customer the customer
	 * @param otherTenant the tenant it switches to
	 */
	@Transactional
	public void placeThenSwitch(String customer, String otherTenant) {
		this.bodyRuns.incrementAndGet();
		this.entityManager.persist(new PurchaseOrder(customer, 100));
		this.entityManager.flush();
		try (TenantContext.Scope scope = TenantContext.bind(otherTenant)) {
			this.entityManager.persist(new PurchaseOrder(customer, 200));
			this.entityManager.flush();
		}
	}

	/** @return how many times a method body ran since the last reset */
	public int bodyRuns() {
		return this.bodyRuns.get();
	}

	/** @return what the first statement of each {@link #seeThenPlace} run saw, in order */
	public List<SessionView> views() {
		synchronized (this.views) {
			return List.copyOf(this.views);
		}
	}

	/** @param hook called in {@link #seeThenPlace} after its first statement, with the body's run number (1, 2...) */
	public void afterFirstStatement(IntConsumer hook) {
		this.afterFirstStatement = hook;
	}

	/** Forgets the counts and the hook. */
	public void reset() {
		this.bodyRuns.set(0);
		synchronized (this.views) {
			this.views.clear();
		}
		this.afterFirstStatement = (run) -> {
		};
	}

}
