package io.github.shardtenancy.boot.actuate;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

import io.github.shardtenancy.HotTenant;
import io.github.shardtenancy.RebalanceProposal;
import io.github.shardtenancy.RebalanceResult;
import io.github.shardtenancy.TenantLoad;
import org.springframework.boot.actuate.endpoint.SanitizableData;

/**
 * Replaces the tenant ids of the endpoints' answers by Spring Boot's sanitized marker
 * ({@value SanitizableData#SANITIZED_VALUE}) when they are not to be shown; shard ids, counts and figures stay.
 */
final class TenantIdSanitizer {

	static final String SANITIZED = SanitizableData.SANITIZED_VALUE;

	private TenantIdSanitizer() {
	}

	static Timeline timeline(Timeline timeline) {
		return new Timeline(timeline.fromEpochSecond(), timeline.toEpochSecond(), timeline.windowSeconds(),
				timeline.total(),
				timeline.tenants().stream()
					.map((s) -> new Timeline.TenantSeries(SANITIZED, s.moveId(), s.sourceShard(), s.targetShard(),
							s.step(), s.seconds()))
					.toList(),
				timeline.freezes().stream()
					.map((f) -> new Timeline.FreezeWindow(SANITIZED, f.moveId(), f.sourceShard(), f.targetShard(),
							f.frozenAtEpochMilli(), f.endedAtEpochMilli(), f.endedBy()))
					.toList());
	}

	static List<HotTenant> hotTenants(List<HotTenant> tenants) {
		return tenants.stream()
			.map((t) -> new HotTenant(SANITIZED, t.shardId(), t.measure(), t.load(), t.shardLoad(), t.share()))
			.toList();
	}

	static List<TenantLoad> traffic(List<TenantLoad> tenants) {
		return tenants.stream()
			.map((t) -> new TenantLoad(SANITIZED, t.shardId(), t.transactions(), t.rowsWritten(), t.nanosSpent(),
					t.rowsStored(), t.bytesStored()))
			.toList();
	}

	static RebalanceProposal proposal(RebalanceProposal proposal) {
		return new RebalanceProposal(proposal.measure(), proposal.band(), proposal.before(), moves(proposal.moves()),
				proposal.after(), proposal.medianBefore(), proposal.medianAfter(), proposal.balancedAfter(),
				proposal.directoryVersion());
	}

	/**
	 * The result with its tenants sanitized. The {@code skipped} and {@code failed} maps are keyed by tenant: their
	 * keys become {@code ******-1}, {@code ******-2}, ... (distinct, so that no entry is lost), and the tenant id is
	 * replaced wherever its reason names it as a whole id.
	 */
	static RebalanceResult result(RebalanceResult result) {
		return new RebalanceResult(result.rounds(), moves(result.moved()), reasons(result.skipped()),
				reasons(result.failed()), result.maxConcurrent(), result.balanced(), proposal(result.last()));
	}

	private static List<RebalanceProposal.Move> moves(List<RebalanceProposal.Move> moves) {
		return moves.stream()
			.map((m) -> new RebalanceProposal.Move(SANITIZED, m.sourceShardId(), m.targetShardId(), m.load()))
			.toList();
	}

	private static Map<String, String> reasons(Map<String, String> byTenant) {
		Map<String, String> sanitized = new LinkedHashMap<>();
		byTenant.forEach((tenant, reason) -> sanitized.put(SANITIZED + "-" + (sanitized.size() + 1),
				wholeId(tenant).matcher(reason).replaceAll(SANITIZED)));
		return sanitized;
	}

	/** The tenant id where it is not part of a longer id (the tenant id rule's characters around it). */
	private static Pattern wholeId(String tenant) {
		return Pattern.compile("(?<![A-Za-z0-9._:-])" + Pattern.quote(tenant) + "(?![A-Za-z0-9._:-])");
	}

}
