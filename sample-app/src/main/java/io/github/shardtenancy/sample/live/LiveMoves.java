package io.github.shardtenancy.sample.live;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Deque;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentLinkedDeque;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

import io.github.shardtenancy.MoveException;
import io.github.shardtenancy.TenantIds;
import io.github.shardtenancy.UnknownShardException;
import io.github.shardtenancy.UnknownTenantException;
import io.github.shardtenancy.boot.ShardTenancyProperties;
import io.github.shardtenancy.DirectoryEntry;
import io.github.shardtenancy.TenantState;
import io.github.shardtenancy.MoveInProgressException;
import io.github.shardtenancy.MoveSettings;
import io.github.shardtenancy.MoveStatus;
import io.github.shardtenancy.TenantMover;
import io.github.shardtenancy.ShardTopology;
import io.github.shardtenancy.TenantAdmin;
import io.github.shardtenancy.TenantRouter;
import io.github.shardtenancy.spi.MoveHook;
import org.springframework.beans.factory.ObjectProvider;
import io.github.shardtenancy.MoveStep;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.DisposableBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.stereotype.Component;

/**
 * Starts online moves for the live page, each on a thread of its own, and reports them: the moves started here
 * (the last {@value #KEPT} of them, finished or not) and any other unfinished move of a tenant the directory shows
 * as moving. A move can pause after each of its steps before the flip, so that a person watching the page sees every
 * step and writers meet the freeze; the pauses after the freeze, the final catch-up and the verification each
 * lengthen the freeze window by as much. A move that
 * returns FLIPPED (the clean delay {@code shard-tenancy.move.clean-delay} is not zero) is cleaned once the delay has
 * passed. Thread-safe.
 */
@Component
@ConditionalOnWebApplication
public class LiveMoves implements MoveHook, DisposableBean {

	/**
	 * Catch-up rounds before the freeze. A burst started from the page never pauses, so the lag would not shrink:
	 * after this many rounds the move freezes anyway and its final catch-up copies the rest.
	 */
	static final int CATCH_UP_ROUNDS = 3;

	private static final Logger log = LoggerFactory.getLogger(LiveMoves.class);

	/** How many moves started here are reported. */
	static final int KEPT = 8;

	/**
	 * The longest pause after a step, in ms: three pauses fall inside the freeze (after the freeze, the final catch-up
	 * and the verification), which must stay well below {@code shard-tenancy.retry.freeze-wait} (10 s by default).
	 */
	static final long MAX_STEP_PAUSE_MS = 2_000;

	private final ObjectProvider<TenantMover> mover;

	private final ObjectProvider<TenantAdmin> directory;

	private final ObjectProvider<TenantRouter> router;

	private final ObjectProvider<ShardTopology> topology;

	private final Duration cleanDelay;

	private final ExecutorService runner = Executors.newCachedThreadPool(Threads.named("live-move-"));

	private final Deque<Request> requests = new ConcurrentLinkedDeque<>();

	/**
	 * The tenancy's beans are looked up on use: this bean is the tenancy's move hook
	 * ({@link LiveConfiguration#livePacing}), so it exists before the tenancy.
	 * @param mover runs the moves, and cleans their sources after the clean delay
	 * @param directory tells where tenants are
	 * @param router the directory version an unknown tenant is reported with
	 * @param topology the shards
	 * @param properties the clean delay of the moves ({@code shard-tenancy.move.clean-delay})
	 */
	public LiveMoves(ObjectProvider<TenantMover> mover, ObjectProvider<TenantAdmin> directory,
			ObjectProvider<TenantRouter> router, ObjectProvider<ShardTopology> topology,
			ShardTenancyProperties properties) {
		this.mover = mover;
		this.directory = directory;
		this.router = router;
		this.topology = topology;
		this.cleanDelay = properties.getMove().getCleanDelay();
	}

	/** A move asked for on the page; its id is known once the mover recorded it. */
	static final class Request {

		final String tenantId;

		final String targetShardId;

		final long stepPauseMs;

		final Instant requestedAt = Instant.now();

		volatile String moveId;

		volatile String error;

		volatile boolean finished;

		Request(String tenantId, String targetShardId, long stepPauseMs) {
			this.tenantId = tenantId;
			this.targetShardId = targetShardId;
			this.stepPauseMs = stepPauseMs;
		}

	}

	/**
	 * Checks the request and starts the move on a thread of its own.
	 * @param tenantId the tenant, ACTIVE and not moving
	 * @param targetShardId the shard to move it to, in the topology, not its owner
	 * @param stepPauseMs pause after each step before the flip, 0 to {@value #MAX_STEP_PAUSE_MS} ms
	 * @throws io.github.shardtenancy.InvalidTenantIdException if the tenant id is invalid
	 * @throws UnknownTenantException if the directory does not know the tenant
	 * @throws UnknownShardException if the target is not a shard of the topology
	 * @throws MoveInProgressException if the tenant has an unfinished move
	 * @throws MoveException if the tenant is not ACTIVE or already lives on the target
	 * @throws IllegalArgumentException if the pause is out of range
	 */
	public void start(String tenantId, String targetShardId, long stepPauseMs) {
		TenantIds.requireValid(tenantId);
		if (stepPauseMs < 0 || stepPauseMs > MAX_STEP_PAUSE_MS) {
			throw new IllegalArgumentException(
					"stepPauseMs must be between 0 and " + MAX_STEP_PAUSE_MS + ", was " + stepPauseMs);
		}
		DirectoryEntry entry = this.directory.getObject()
			.find(tenantId)
			.orElseThrow(() -> new UnknownTenantException(tenantId, this.router.getObject().version()));
		this.topology.getObject().dataSource(targetShardId);
		if (this.mover.getObject().findActive(tenantId).isPresent()) {
			throw new MoveInProgressException("Tenant '" + tenantId + "' on shard '" + entry.shardId()
					+ "' (directory version " + entry.version() + ") is being moved already", tenantId,
					entry.shardId(), entry.version(), null);
		}
		if (entry.state() != TenantState.ACTIVE || entry.shardId().equals(targetShardId)) {
			throw new MoveException("Tenant '" + tenantId + "' is " + entry.state() + " on shard '" + entry.shardId()
					+ "' (directory version " + entry.version() + "): it cannot be moved to '" + targetShardId + "'",
					tenantId, entry.shardId(), entry.version(), null);
		}
		Request request = new Request(tenantId, targetShardId, stepPauseMs);
		this.requests.addFirst(request);
		while (this.requests.size() > KEPT) {
			this.requests.pollLast();
		}
		this.runner.execute(() -> run(request));
	}

	/**
	 * The tenancy's move hook: for a move this page asked for and that is still running, records its id and pauses
	 * after each step before the flip. Other moves (the admin's, the demo's) pass through.
	 */
	@Override
	public void stepRecorded(String moveId, MoveStep step) {
		Request request = running(moveId);
		if (request == null) {
			return;
		}
		request.moveId = moveId;
		if (request.stepPauseMs > 0 && !step.isFlipped() && !step.isFinal()) {
			pause(request.stepPauseMs);
		}
	}

	/** @return the request of this page's running move with that id, or {@code null} */
	private Request running(String moveId) {
		Request waiting = null;
		for (Request request : this.requests) {
			if (moveId.equals(request.moveId) && !request.finished) {
				return request;
			}
			if (request.moveId == null && !request.finished) {
				waiting = request;
			}
		}
		if (waiting == null) {
			return null;
		}
		String tenantId = this.mover.getObject().status(moveId).tenantId();
		for (Request request : this.requests) {
			if (request.moveId == null && !request.finished && request.tenantId.equals(tenantId)) {
				return request;
			}
		}
		return null;
	}

	private void run(Request request) {
		try {
			// The mover cleans the source itself once the clean delay has passed.
			request.moveId = this.mover.getObject().moveAndWait(request.tenantId, request.targetShardId,
					MoveSettings.defaults().withCleanDelay(this.cleanDelay).withMaxCatchUpRounds(CATCH_UP_ROUNDS))
				.moveId();
		}
		catch (RuntimeException ex) {
			log.warn("Live page: move of tenant '{}' to '{}' failed: {}", request.tenantId, request.targetShardId,
					ex.getMessage());
			request.error = ex.getClass().getSimpleName() + ": " + ex.getMessage();
		}
		finally {
			request.finished = true;
		}
	}

	private static void pause(long ms) {
		try {
			Thread.sleep(ms);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

	/**
	 * @param moving entries of the tenants the directory shows as moving (MIGRATING or FROZEN)
	 * @return the moves started here, newest first, then the other unfinished moves of the moving tenants
	 * @throws io.github.shardtenancy.DirectoryUnavailableException if the move log cannot be read
	 */
	List<LiveState.Move> moves(List<DirectoryEntry> moving) {
		Map<String, LiveState.Move> moves = new LinkedHashMap<>();
		for (Request request : this.requests) {
			String moveId = request.moveId;
			MoveStatus status = (moveId != null) ? this.mover.getObject().status(moveId) : null;
			String key = (moveId != null) ? moveId : "requested-" + System.identityHashCode(request);
			moves.put(key, LiveState.Move.of(request, status));
		}
		for (DirectoryEntry entry : moving) {
			this.mover.getObject()
				.findActive(entry.tenantId())
				.ifPresent(status -> moves.putIfAbsent(status.moveId(), LiveState.Move.of(null, status)));
		}
		return new ArrayList<>(moves.values());
	}

	@Override
	public void destroy() throws InterruptedException {
		this.runner.shutdownNow();
		this.runner.awaitTermination(10, TimeUnit.SECONDS);
	}

}
