package io.github.shardtenancy.internal.placement;

import io.github.shardtenancy.PlacementRequest;
import io.github.shardtenancy.spi.PlacementContext;
import io.github.shardtenancy.ShardLoad;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.Predicate;

import io.github.shardtenancy.internal.directory.Directory;
import io.github.shardtenancy.ShardRecord;
import io.github.shardtenancy.internal.topology.ShardRegistry;
import io.github.shardtenancy.spi.PlacementPolicy;

/**
 * Chooses a new tenant's owner inside the directory transaction that creates its entry, in this order:
 * <ol>
 * <li>the tenant's override ({@code shard_tenant_override}), if it has one;</li>
 * <li>the shard named in the request ({@link PlacementRequest#onShard}), if any;</li>
 * <li>otherwise the {@link PlacementPolicy}, given every ACTIVE registered shard with its region and tenant count,
 * and the tenant's slot and the slot's shard when fixed-slot mode is initialised.</li>
 * </ol>
 * Whichever decides, the chosen shard must be an ACTIVE registered shard, or placement fails with
 * {@link io.github.shardtenancy.PlacementException} and nothing is written. Immutable and thread-safe.
 */
public final class ShardPlacement {

	private final PlacementPolicy policy;

	private final Predicate<String> reachable;

	/** @param policy the policy used when neither an override nor the request decides */
	public ShardPlacement(PlacementPolicy policy) {
		this(policy, (shardId) -> true);
	}

	/**
	 * @param policy the policy used when neither an override nor the request decides
	 * @param reachable whether this instance reaches a registered shard: one it does not (a configured shard down
	 * since start-up) is no candidate
	 */
	public ShardPlacement(PlacementPolicy policy, Predicate<String> reachable) {
		this.policy = Objects.requireNonNull(policy, "policy");
		this.reachable = Objects.requireNonNull(reachable, "reachable");
	}

	/** @return the policy */
	public PlacementPolicy policy() {
		return this.policy;
	}

	/**
	 * @param request the caller's request
	 * @return the choice to pass to {@link Directory#create(String, String, Directory.ShardChoice)}
	 */
	public Directory.ShardChoice choice(PlacementRequest request) {
		Objects.requireNonNull(request, "request");
		return (c, version, tenantId) -> {
			PlacementContext context = context(c, version, tenantId, request, this.reachable);
			if (context.candidates().isEmpty()) {
				throw context.fail("no ACTIVE shard is registered");
			}
			String override = SlotMap.overrideOf(c, tenantId);
			if (override != null) {
				return requireCandidate(context, override, "its override names shard '" + override + "'");
			}
			if (request.shardId() != null) {
				return requireCandidate(context, request.shardId(), "it was asked for on shard '"
						+ request.shardId() + "'");
			}
			String chosen = this.policy.choose(context);
			return requireCandidate(context, chosen, "the placement policy chose shard '" + chosen + "'");
		};
	}

	private static String requireCandidate(PlacementContext context, String shardId, String why) {
		if (shardId == null || context.candidate(shardId).isEmpty()) {
			throw context.fail(why + ", which is not an ACTIVE registered shard that this instance reaches");
		}
		return shardId;
	}

	private static PlacementContext context(Connection c, long version, String tenantId, PlacementRequest request,
			Predicate<String> reachable) throws SQLException {
		Map<String, Long> counts = new HashMap<>();
		try (PreparedStatement ps = c.prepareStatement("SELECT shard_id, COUNT(*) FROM shard_directory_entry "
				+ "WHERE state <> 'DELETED' GROUP BY shard_id"); ResultSet rs = ps.executeQuery()) {
			while (rs.next()) {
				counts.put(rs.getString(1), rs.getLong(2));
			}
		}
		List<ShardLoad> candidates = new ArrayList<>();
		for (ShardRecord record : ShardRegistry.active(c)) {
			if (!reachable.test(record.shardId())) {
				continue;
			}
			candidates.add(new ShardLoad(record.shardId(), record.region(), counts.getOrDefault(record.shardId(), 0L)));
		}
		SlotMap.SlotAssignment slot = SlotMap.slotAndShard(c, tenantId);
		return new PlacementContext(tenantId, request, candidates, slot != null ? slot.slot() : -1,
				slot != null ? slot.shardId() : null, version);
	}

}
