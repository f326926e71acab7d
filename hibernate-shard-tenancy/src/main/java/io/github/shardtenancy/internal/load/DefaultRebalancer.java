package io.github.shardtenancy.internal.load;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;

import io.github.shardtenancy.DirectoryEntry;
import io.github.shardtenancy.DirectoryUnavailableException;
import io.github.shardtenancy.LoadMeasure;
import io.github.shardtenancy.RebalanceProposal;
import io.github.shardtenancy.RebalanceResult;
import io.github.shardtenancy.RebalanceSettings;
import io.github.shardtenancy.Rebalancer;
import io.github.shardtenancy.TenantLoad;
import io.github.shardtenancy.TenantMover;
import io.github.shardtenancy.TenantState;
import io.github.shardtenancy.internal.directory.Directory;
import io.github.shardtenancy.ShardLoad;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@link Rebalancer} over {@link DefaultTenantLoads}, the {@link Planner} and the mover. Thread-safe; executions are
 * serialised.
 */
public final class DefaultRebalancer implements Rebalancer {

	private static final Logger log = LoggerFactory.getLogger(DefaultRebalancer.class);

	private final DefaultTenantLoads loads;

	private final Directory directory;

	private final Supplier<TenantMover> mover;

	/**
	 * @param loads the load figures
	 * @param directory the directory (pins, overrides, states)
	 * @param mover the mover, asked for on the first execution
	 */
	public DefaultRebalancer(DefaultTenantLoads loads, Directory directory, Supplier<TenantMover> mover) {
		this.loads = Objects.requireNonNull(loads, "loads");
		this.directory = Objects.requireNonNull(directory, "directory");
		this.mover = Objects.requireNonNull(mover, "mover");
	}

	@Override
	public RebalanceProposal propose(RebalanceSettings settings) {
		long version = this.directory.currentVersion();
		List<TenantLoad> tenants = settings.measure() == LoadMeasure.TENANTS ? owners() : this.loads.measure();
		List<ShardLoad> before = this.loads.shards(tenants);
		List<RebalanceProposal.Move> moves = Planner.plan(tenants, before, fixed(), settings.measure(),
				settings.band(), settings.maxMovesPerRound());
		List<ShardLoad> after = this.loads.shards(Planner.after(tenants, moves));
		return new RebalanceProposal(settings.measure(), settings.band(), before, moves, after,
				median(before, settings.measure()), median(after, settings.measure()),
				Rebalancer.balanced(after, settings.measure(), settings.band()), version);
	}

	/** @return every tenant that is not DELETED with its owner, nothing measured (enough to count tenants) */
	private List<TenantLoad> owners() {
		List<TenantLoad> tenants = new ArrayList<>();
		this.directory.snapshot(entry -> {
			if (entry.state() != TenantState.DELETED) {
				tenants.add(new TenantLoad(entry.tenantId(), entry.shardId(), 0, 0, 0, -1, -1));
			}
		});
		return tenants;
	}

	private static double median(List<ShardLoad> shards, LoadMeasure measure) {
		if (shards.isEmpty()) {
			return 0;
		}
		return Rebalancer.median(shards.stream().mapToLong(s -> s.value(measure)).sorted().toArray());
	}

	/** @return the tenants never to move: pinned, with an override, or not ACTIVE */
	private Set<String> fixed() {
		Set<String> fixed = new HashSet<>();
		try (Connection c = this.directory.dataSource().getConnection();
				PreparedStatement ps = c.prepareStatement("SELECT tenant_id FROM shard_tenant_pin UNION "
						+ "SELECT tenant_id FROM shard_tenant_override UNION "
						+ "SELECT tenant_id FROM shard_directory_entry WHERE state <> 'ACTIVE'");
				ResultSet rs = ps.executeQuery()) {
			while (rs.next()) {
				fixed.add(rs.getString(1));
			}
		}
		catch (SQLException ex) {
			throw new DirectoryUnavailableException(null, -1, ex);
		}
		return fixed;
	}

	@Override
	public synchronized RebalanceResult execute(RebalanceProposal proposal, RebalanceSettings settings) {
		Rounds rounds = new Rounds();
		runRound(proposal, settings, rounds);
		RebalanceProposal now = propose(settings.withMaxMovesPerRound(1));
		return rounds.result(1, now.balancedBefore(), proposal);
	}

	@Override
	public synchronized RebalanceResult rebalance(RebalanceSettings settings, int maxRounds) {
		if (maxRounds < 1) {
			throw new IllegalArgumentException("maxRounds must be at least 1: " + maxRounds);
		}
		Rounds rounds = new Rounds();
		RebalanceProposal proposal = propose(settings);
		int round = 0;
		while (round < maxRounds && !proposal.moves().isEmpty() && !proposal.balancedBefore()) {
			round++;
			int movedBefore = rounds.moved.size();
			runRound(proposal, settings, rounds);
			proposal = propose(settings);
			if (rounds.moved.size() == movedBefore) {
				break; // nothing could be moved: proposing again would propose the same
			}
		}
		return rounds.result(round, proposal.balancedBefore(), proposal);
	}

	private void runRound(RebalanceProposal proposal, RebalanceSettings settings, Rounds rounds) {
		Set<String> fixed = fixed();
		TenantMover mover = this.mover.get();
		ExecutorService pool = Executors.newFixedThreadPool(settings.maxConcurrentMoves(), runnable -> {
			Thread thread = new Thread(runnable, "shard-tenancy-rebalancer");
			thread.setDaemon(true);
			return thread;
		});
		Semaphore slots = new Semaphore(settings.maxConcurrentMoves());
		List<Future<?>> running = new ArrayList<>();
		try {
			for (RebalanceProposal.Move move : proposal.moves()) {
				String skip = skipReason(move, fixed);
				if (skip != null) {
					rounds.skipped.put(move.tenantId(), skip);
					continue;
				}
				slots.acquire();
				running.add(pool.submit(() -> {
					int now = rounds.inFlight.incrementAndGet();
					rounds.maxConcurrent.accumulateAndGet(now, Math::max);
					try {
						mover.moveAndWait(move.tenantId(), move.targetShardId(), settings.moveSettings());
						rounds.moved.add(move);
					}
					catch (RuntimeException ex) {
						log.warn("Rebalancing move of tenant '{}' from shard '{}' to shard '{}' failed: {}",
								move.tenantId(), move.sourceShardId(), move.targetShardId(), ex.getMessage());
						rounds.failed.put(move.tenantId(), String.valueOf(ex.getMessage()));
					}
					finally {
						rounds.inFlight.decrementAndGet();
						slots.release();
					}
				}));
				if (!settings.pause().isZero()) {
					TimeUnit.NANOSECONDS.sleep(settings.pause().toNanos());
				}
			}
			for (Future<?> future : running) {
				future.get();
			}
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			for (Future<?> future : running) {
				future.cancel(true);
			}
		}
		catch (java.util.concurrent.ExecutionException ex) {
			throw new IllegalStateException("A rebalancing move ended unexpectedly", ex.getCause());
		}
		finally {
			pool.shutdown();
		}
	}

	private @org.jspecify.annotations.Nullable String skipReason(RebalanceProposal.Move move, Set<String> fixed) {
		if (fixed.contains(move.tenantId())) {
			return "pinned, given an override or not ACTIVE since the proposal";
		}
		Optional<DirectoryEntry> entry = this.directory.find(move.tenantId());
		if (entry.isEmpty() || entry.get().state() != TenantState.ACTIVE) {
			return "not ACTIVE";
		}
		if (!entry.get().shardId().equals(move.sourceShardId())) {
			return "on shard '" + entry.get().shardId() + "' now, not '" + move.sourceShardId() + "'";
		}
		return null;
	}

	/** What the rounds of one execution did. */
	private static final class Rounds {

		final List<RebalanceProposal.Move> moved = Collections.synchronizedList(new ArrayList<>());

		final Map<String, String> skipped = Collections.synchronizedMap(new LinkedHashMap<>());

		final Map<String, String> failed = Collections.synchronizedMap(new LinkedHashMap<>());

		final AtomicInteger inFlight = new AtomicInteger();

		final AtomicInteger maxConcurrent = new AtomicInteger();

		RebalanceResult result(int rounds, boolean balanced, RebalanceProposal last) {
			synchronized (this.moved) {
				return new RebalanceResult(rounds, this.moved, this.skipped, this.failed, this.maxConcurrent.get(),
						balanced, last);
			}
		}

	}

}
