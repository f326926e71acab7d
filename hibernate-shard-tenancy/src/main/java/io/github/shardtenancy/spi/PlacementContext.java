package io.github.shardtenancy.spi;

import io.github.shardtenancy.ShardLoad;
import io.github.shardtenancy.PlacementRequest;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

import io.github.shardtenancy.PlacementException;

/**
 * What a {@link io.github.shardtenancy.spi.PlacementPolicy} decides from, read inside the directory transaction that
 * creates the tenant. Immutable.
 *
 * @param tenantId the new tenant
 * @param request the caller's request
 * @param candidates every ACTIVE registered shard, sorted by id; never empty (placement fails before the policy is
 * asked when there is none)
 * @param slot the tenant's slot in fixed-slot mode, or {@code -1} when slots are not initialised
 * @param slotShard the shard the slot table assigns that slot to, or {@code null}
 * @param directoryVersion the directory version the new entry will carry
 */
public record PlacementContext(String tenantId, PlacementRequest request, List<ShardLoad> candidates, int slot,
		String slotShard, long directoryVersion) {

	public PlacementContext {
		Objects.requireNonNull(tenantId, "tenantId");
		Objects.requireNonNull(request, "request");
		candidates = List.copyOf(candidates);
	}

	/**
	 * @param shardId a shard
	 * @return its candidate entry, if it is ACTIVE and registered
	 */
	public Optional<ShardLoad> candidate(String shardId) {
		return this.candidates.stream().filter(c -> c.shardId().equals(shardId)).findFirst();
	}

	/**
	 * @param among some of the candidates
	 * @return the one owning fewest tenants; ties go to the smallest shard id
	 * @throws PlacementException if {@code among} is empty
	 */
	public String leastLoaded(List<ShardLoad> among) {
		return among.stream()
			.min(Comparator.comparingLong(ShardLoad::tenants).thenComparing(ShardLoad::shardId))
			.map(ShardLoad::shardId)
			.orElseThrow(() -> fail("no ACTIVE shard to choose from"));
	}

	/**
	 * @param reason why placement failed
	 * @return an exception naming the tenant and version
	 */
	public PlacementException fail(String reason) {
		return new PlacementException("Cannot place tenant '" + this.tenantId + "' (directory version "
				+ this.directoryVersion + "): " + reason, this.tenantId, null, this.directoryVersion);
	}

}
