package io.github.shardtenancy.boot.actuate;

import java.time.Instant;
import java.util.List;
import java.util.Objects;

import io.github.shardtenancy.HotTenant;
import io.github.shardtenancy.LoadMeasure;
import io.github.shardtenancy.RebalanceProposal;
import io.github.shardtenancy.RebalanceResult;
import io.github.shardtenancy.TenantLoad;
import io.github.shardtenancy.TenantLoads;
import io.github.shardtenancy.boot.RebalancerRuns;
import io.github.shardtenancy.ShardLoad;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.actuate.endpoint.Access;
import org.springframework.boot.actuate.endpoint.InvalidEndpointRequestException;
import org.springframework.boot.actuate.endpoint.OperationResponseBody;
import org.springframework.boot.actuate.endpoint.Show;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;
import org.springframework.boot.actuate.endpoint.annotation.Selector;
import org.springframework.boot.actuate.endpoint.annotation.WriteOperation;

/**
 * The Actuator endpoint {@code shardtenancyload}: load figures per shard and tenant, the hot-tenant report and the
 * rebalancer. A separate endpoint from {@code shardtenancy}, whose single-selector path is a tenant id. Its default
 * access is {@link Access#READ_ONLY}, like {@code shardtenancy}: the write operation, which moves tenants, exists only
 * once {@code management.endpoint.shardtenancyload.access=unrestricted} allows it, and runs only with
 * {@code shard-tenancy.rebalancer.enabled} and {@code shard-tenancy.rebalancer.execute} on.
 *
 * <ul>
 * <li>read ({@code GET /actuator/shardtenancyload}): every ACTIVE shard's totals (tenants, this instance's traffic,
 * rows and bytes stored, which reads every tenant table of every shard once) and the hot-tenant report
 * ({@code shard-tenancy.load.hot-measure}, {@code hot-threshold}).</li>
 * <li>read a view ({@code GET /actuator/shardtenancyload/{view}}): {@code traffic} (this instance's traffic per
 * tenant in the window, most transactions first), {@code proposal} (a new dry-run proposal of the rebalancer), or
 * {@code last} (the last proposal and the last execution's result).</li>
 * <li>write ({@code POST /actuator/shardtenancyload}): proposes and starts executing the proposal in the background;
 * answers with the proposal. Follow it with the {@code last} view.</li>
 * </ul>
 * Traffic figures are this instance's only.
 *
 * <p>Tenant ids are sensitive, and are treated as Spring Boot's {@code env} endpoint treats values
 * ({@code management.endpoint.env.show-values}): this endpoint's {@link Show} setting
 * ({@code management.endpoint.shardtenancyload.show-values}, default {@link Show#NEVER}) decides whether they are
 * shown. When they are not, every tenant id of every answer (hot tenants, traffic, proposed and executed moves, the
 * tenants skipped or failed) is replaced by {@code ******}; shard ids and figures are shown. Over JMX,
 * {@link Show#WHEN_AUTHORIZED} shows them, as Boot's endpoints do; over HTTP,
 * {@link ShardTenancyLoadEndpointWebExtension} decides from the request's security context. Thread-safe.
 */
@Endpoint(id = "shardtenancyload", defaultAccess = Access.READ_ONLY)
public class ShardTenancyLoadEndpoint {

	private final TenantLoads loads;

	private final RebalancerRuns runs;

	private final LoadMeasure hotMeasure;

	private final double hotThreshold;

	private final Show showValues;

	/**
	 * An endpoint showing no tenant id ({@link Show#NEVER}).
	 * @param loads the load figures; never {@code null}
	 * @param runs the rebalancer's runs; never {@code null}
	 * @param hotMeasure the measure of the hot-tenant report; never {@code null}
	 * @param hotThreshold the share above which a tenant is hot, in (0, 1]
	 */
	public ShardTenancyLoadEndpoint(TenantLoads loads, RebalancerRuns runs, LoadMeasure hotMeasure,
			double hotThreshold) {
		this(loads, runs, hotMeasure, hotThreshold, Show.NEVER);
	}

	/**
	 * @param loads the load figures; never {@code null}
	 * @param runs the rebalancer's runs; never {@code null}
	 * @param hotMeasure the measure of the hot-tenant report; never {@code null}
	 * @param hotThreshold the share above which a tenant is hot, in (0, 1]
	 * @param showValues when tenant ids are shown ({@code management.endpoint.shardtenancyload.show-values}); over
	 * JMX {@link Show#WHEN_AUTHORIZED} shows them; never {@code null}
	 */
	public ShardTenancyLoadEndpoint(TenantLoads loads, RebalancerRuns runs, LoadMeasure hotMeasure,
			double hotThreshold, Show showValues) {
		this.loads = Objects.requireNonNull(loads, "loads");
		this.runs = Objects.requireNonNull(runs, "runs");
		this.hotMeasure = Objects.requireNonNull(hotMeasure, "hotMeasure");
		this.hotThreshold = hotThreshold;
		this.showValues = Objects.requireNonNull(showValues, "showValues");
	}

	/**
	 * @return every ACTIVE shard's totals and the hot tenants; never {@code null}
	 * @throws io.github.shardtenancy.DirectoryUnavailableException if the directory cannot be read
	 */
	@ReadOperation
	public LoadDescriptor load() {
		return load(this.showValues.isShown(true));
	}

	LoadDescriptor load(boolean showValues) {
		List<TenantLoad> tenants = this.loads.measure();
		List<HotTenant> hot = this.loads.hotTenants(tenants, this.hotMeasure, this.hotThreshold);
		return new LoadDescriptor(this.loads.tracking(), this.loads.shards(tenants), new HotDescriptor(this.hotMeasure,
				this.hotThreshold, showValues ? hot : TenantIdSanitizer.hotTenants(hot)));
	}

	/**
	 * @param view {@code traffic}, {@code proposal} or {@code last}
	 * @return the view; never {@code null}
	 * @throws InvalidEndpointRequestException (HTTP 400) for another view
	 * @throws io.github.shardtenancy.DirectoryUnavailableException if the directory cannot be read
	 */
	@ReadOperation
	public OperationResponseBody view(@Selector String view) {
		return view(view, this.showValues.isShown(true));
	}

	OperationResponseBody view(String view, boolean showValues) {
		return switch (view) {
			case "traffic" -> new TrafficDescriptor(this.loads.tracking(),
					showValues ? this.loads.traffic() : TenantIdSanitizer.traffic(this.loads.traffic()));
			case "proposal" -> new ProposalDescriptor(shown(this.runs.propose(), showValues),
					this.runs.executionAllowed());
			case "last" -> last(showValues);
			default -> throw new InvalidEndpointRequestException("Unknown view '" + view
					+ "': traffic, proposal or last", "Unknown view");
		};
	}

	/**
	 * Proposes and starts executing the proposal in the background. A write operation.
	 * @return the proposal being executed; never {@code null}
	 * @throws InvalidEndpointRequestException (HTTP 400) if executions are off
	 * ({@code shard-tenancy.rebalancer.enabled}, {@code shard-tenancy.rebalancer.execute}) or one is running
	 * @throws io.github.shardtenancy.DirectoryUnavailableException if the directory cannot be read
	 */
	@WriteOperation
	public ProposalDescriptor execute() {
		return execute(this.showValues.isShown(true));
	}

	ProposalDescriptor execute(boolean showValues) {
		try {
			return new ProposalDescriptor(shown(this.runs.startExecution(), showValues), true);
		}
		catch (IllegalStateException ex) {
			throw new InvalidEndpointRequestException(ex.getMessage(), ex.getMessage());
		}
	}

	private LastDescriptor last(boolean showValues) {
		RebalanceProposal proposal = this.runs.lastProposal();
		RebalanceResult result = this.runs.lastResult();
		return new LastDescriptor((proposal != null) ? shown(proposal, showValues) : null,
				(result != null && !showValues) ? TenantIdSanitizer.result(result) : result, this.runs.lastResultAt(),
				this.runs.executing());
	}

	private static RebalanceProposal shown(RebalanceProposal proposal, boolean showValues) {
		return showValues ? proposal : TenantIdSanitizer.proposal(proposal);
	}

	/**
	 * The load figures.
	 * @param tracking whether this instance counts traffic ({@code shard-tenancy.load.enabled})
	 * @param shards every ACTIVE registered shard's totals, sorted by id
	 * @param hot the hot-tenant report
	 */
	public record LoadDescriptor(boolean tracking, List<ShardLoad> shards, HotDescriptor hot)
			implements OperationResponseBody {

	}

	/**
	 * The hot-tenant report.
	 * @param measure what the shares are of
	 * @param threshold the share above which a tenant is named
	 * @param tenants the tenants above it, largest share first
	 */
	public record HotDescriptor(LoadMeasure measure, double threshold, List<HotTenant> tenants) {

	}

	/**
	 * This instance's traffic.
	 * @param tracking whether traffic is counted
	 * @param tenants each tenant's figures in the window, most transactions first
	 */
	public record TrafficDescriptor(boolean tracking, List<TenantLoad> tenants) implements OperationResponseBody {

	}

	/**
	 * A proposal.
	 * @param proposal the proposal
	 * @param executionAllowed whether this instance may execute it
	 */
	public record ProposalDescriptor(RebalanceProposal proposal, boolean executionAllowed)
			implements OperationResponseBody {

	}

	/**
	 * The last runs.
	 * @param proposal the last proposal, or {@code null}
	 * @param result the last execution's result, or {@code null}
	 * @param resultAt when it ended, or {@code null}
	 * @param executing whether an execution runs now
	 */
	public record LastDescriptor(@Nullable RebalanceProposal proposal, @Nullable RebalanceResult result,
			@Nullable Instant resultAt, boolean executing) implements OperationResponseBody {

	}

}
