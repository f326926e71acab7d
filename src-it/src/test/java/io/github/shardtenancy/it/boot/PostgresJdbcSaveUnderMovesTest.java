package io.github.shardtenancy.it.boot;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.LongAdder;

import javax.sql.DataSource;

import io.github.shardtenancy.DirectoryEntry;
import io.github.shardtenancy.MoveSettings;
import io.github.shardtenancy.RerunMismatchException;
import io.github.shardtenancy.ShardTenancy;
import io.github.shardtenancy.TenantAdmin;
import io.github.shardtenancy.TenantContext;
import io.github.shardtenancy.TenantMover;
import io.github.shardtenancy.internal.Internals;
import io.github.shardtenancy.it.boot.jdbcsave.JdbcSaveApplication;
import io.github.shardtenancy.it.boot.jdbcsave.Owner;
import io.github.shardtenancy.it.boot.jdbcsave.OwnerService;
import io.github.shardtenancy.it.support.BootProperties;
import io.github.shardtenancy.spi.ShardTenancyObserver;
import io.github.shardtenancy.testing.pg.PostgresCluster;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.jdbc.core.JdbcTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Issue 33, live: a Spring Boot application with a plain JDBC repository ({@link JdbcSaveApplication}) saves a new
 * {@link Owner} per call from several writer threads per tenant, through {@code @Transactional} services and so the
 * automatic retry, while its tenants move online between the PostgreSQL shards one after the other. Moves freeze the
 * tenant briefly, so the fence rejects attempts (FROZEN) and the retry runs the call again with the same object.
 *
 * <p>Two kinds of writer: the lossy save ("id null: set it, INSERT; else UPDATE"), whose re-run after a rejected
 * INSERT finds the id set and updates nothing, and the recipe (the id taken with {@code ShardTenancy.assignId}, reset
 * when the attempt fails). At the end, with every move finished: every acknowledged call's row is on its tenant's
 * owner exactly once and on no other shard; a lossy call is either acknowledged so or refused with
 * {@link RerunMismatchException}, whose row exists nowhere; every recipe call is acknowledged; and rejections were
 * retried for both kinds (else the run proved nothing).
 *
 * <p>And, deterministically, the rejection that the check missed at first: the INSERT's fence begin, which runs when
 * the INSERT is prepared, rejected because a freeze holds the tenant's fence lock ({@code shard_fence_lock}).
 *
 * <p>Bounded: {@code jdbcsave.seconds} of moves (default 15), then the writers stop.
 */
@DisplayName("PostgreSQL: plain JDBC saves under online moves: every acknowledged write exists exactly once")
class PostgresJdbcSaveUnderMovesTest {

	static final Duration RUN = Duration.ofSeconds(Long.getLong("jdbcsave.seconds", 15));

	static final Duration BOUND = Duration.ofSeconds(60);

	static final int TENANTS = 3;

	/** Writers of each kind per tenant. */
	static final int WRITERS = 2;

	enum Kind {
		LOSSY, RECIPE,
		/** The lossy shape with SQL text and no parameters: JdbcTemplate runs it on a plain {@code Statement}. */
		LOSSY_STATEMENT
	}

	/** One call as its caller saw it: acknowledged, refused (RerunMismatchException) or failed otherwise. */
	record Call(Kind kind, String tenant, String name, Long id, String outcome) {

		static final String ACKNOWLEDGED = "acknowledged";

		static final String REFUSED = "refused (RerunMismatchException)";

	}

	/** Counts fence rejections by the kind of writer whose attempt was rejected (the retry tells on its thread). */
	static final class Rejections implements ShardTenancyObserver {

		static final ThreadLocal<Kind> WRITER = new ThreadLocal<>();

		final Map<Kind, LongAdder> rejected = new ConcurrentHashMap<>();

		final Map<String, LongAdder> reasons = new ConcurrentHashMap<>();

		@Override
		public void fenceRejected(String shardId, String reason) {
			Kind kind = WRITER.get();
			if (kind != null) {
				this.rejected.computeIfAbsent(kind, k -> new LongAdder()).increment();
				this.reasons.computeIfAbsent(reason, k -> new LongAdder()).increment();
			}
		}

		long of(Kind kind) {
			LongAdder adder = this.rejected.get(kind);
			return adder != null ? adder.sum() : 0;
		}

	}

	static ConfigurableApplicationContext context;

	static ShardTenancy tenancy;

	static TenantAdmin admin;

	static OwnerService service;

	static final Rejections rejections = new Rejections();

	@BeforeAll
	static void start() {
		PostgresCluster cluster = PostgresCluster.shared();
		List<String> properties = new ArrayList<>(List.of(
				"shard-tenancy.liquibase.shard-changelogs=db/it-pg/pg-jdbc-save.xml",
				"shard-tenancy.tenant-tables=pg_jdbc_owner:tenant_id",
				"shard-tenancy.sync.interval=1h",
				"shard-tenancy.sync.listen=false",
				"shard-tenancy.retry.max-delay=20ms",
				"shard-tenancy.actor=pg-jdbc-save",
				"spring.liquibase.enabled=false",
				"spring.jmx.enabled=false"));
		properties.addAll(BootProperties.connectingTo(cluster));
		context = new SpringApplicationBuilder(JdbcSaveApplication.class).web(WebApplicationType.NONE)
			.properties(properties.toArray(String[]::new))
			.run();
		tenancy = context.getBean(ShardTenancy.class);
		admin = context.getBean(TenantAdmin.class);
		service = context.getBean(OwnerService.class);
		tenancy.addObserver(rejections);
	}

	@AfterAll
	static void stop() {
		if (context != null) {
			context.close();
		}
	}

	@Test
	@DisplayName("a save whose INSERT's fence begin is rejected (a freeze holds the fence lock) is refused when lossy, written once with assignId")
	void rejectedBeginOfTheInsert() throws Exception {
		String tenant = PostgresCluster.tenant("jdbc-save-begin");
		String shard = admin.create(tenant, "shard-1").shardId();
		DataSource raw = Internals.topology(tenancy).shard(shard).dataSource();
		ExecutorService caller = Executors.newSingleThreadExecutor();
		try {
			for (Kind kind : Kind.values()) {
				long before = rejections.of(kind);
				Future<Call> call;
				// What a freeze does first: the tenant's fence lock, held until its transaction ends; every begin of
				// the tenant on the shard is rejected (FROZEN) meanwhile, before its statement runs.
				try (Connection freeze = raw.getConnection()) {
					freeze.setAutoCommit(false);
					try (PreparedStatement lock = freeze.prepareStatement("SELECT shard_fence_lock(?)")) {
						lock.setString(1, tenant);
						lock.execute();
					}
					call = caller.submit(() -> {
						Rejections.WRITER.set(kind);
						return call(service, kind, tenant);
					});
					await("a rejected attempt of " + kind).atMost(BOUND).until(() -> rejections.of(kind) > before);
					freeze.commit();
				}
				Call done = call.get(BOUND.toSeconds(), TimeUnit.SECONDS);
				List<Long> ids = new JdbcTemplate(raw).queryForList("SELECT id FROM pg_jdbc_owner WHERE name = ?",
						Long.class, done.name());
				if (kind != Kind.RECIPE) {
					assertThat(done.outcome()).as("the lossy save's outcome (%s)", kind).isEqualTo(Call.REFUSED);
					assertThat(ids).as("rows of the refused save").isEmpty();
				}
				else {
					assertThat(done.outcome()).as("the outcome of the save with assignId").isEqualTo(Call.ACKNOWLEDGED);
					assertThat(ids).as("rows of the save with assignId").containsExactly(done.id());
				}
			}
		}
		finally {
			caller.shutdownNow();
		}
	}

	@Test
	@DisplayName("a lossy save is acknowledged and present once or refused and absent, a save with assignId is always acknowledged and present once")
	void jdbcSavesUnderOnlineMoves() throws Exception {
		ExecutorService writers = Executors.newFixedThreadPool(TENANTS * WRITERS * 2);
		AtomicBoolean stop = new AtomicBoolean();
		ConcurrentLinkedQueue<Call> calls = new ConcurrentLinkedQueue<>();
		try {
			TenantMover mover = context.getBean(TenantMover.class);
			long lossyBefore = rejections.of(Kind.LOSSY);
			long recipeBefore = rejections.of(Kind.RECIPE);
			long attemptsBefore = service.attempts();

			List<String> tenants = new ArrayList<>();
			for (int i = 0; i < TENANTS; i++) {
				String tenant = PostgresCluster.tenant("jdbc-save");
				admin.create(tenant, PostgresCluster.SHARD_IDS.get(i % PostgresCluster.SHARD_IDS.size()));
				tenants.add(tenant);
			}

			List<Future<?>> running = new ArrayList<>();
			for (String tenant : tenants) {
				for (Kind kind : List.of(Kind.LOSSY, Kind.RECIPE)) {
					for (int w = 0; w < WRITERS; w++) {
						running.add(writers.submit(() -> {
							Rejections.WRITER.set(kind);
							while (!stop.get()) {
								calls.add(call(service, kind, tenant));
							}
							return null;
						}));
					}
				}
			}

			// Moves, one after the other, round the tenants, each to the next shard, until the time is up.
			MoveSettings online = MoveSettings.defaults();
			int moves = 0;
			long deadline = System.nanoTime() + RUN.toNanos();
			while (System.nanoTime() < deadline) {
				String tenant = tenants.get(moves % tenants.size());
				String source = admin.find(tenant).orElseThrow().shardId();
				String target = PostgresCluster.SHARD_IDS
					.get((PostgresCluster.SHARD_IDS.indexOf(source) + 1) % PostgresCluster.SHARD_IDS.size());
				mover.moveAndWait(tenant, target, online);
				moves++;
			}
			stop.set(true);
			for (Future<?> writer : running) {
				writer.get(BOUND.toSeconds(), TimeUnit.SECONDS);
			}

			// Check every call against the shards' rows, read raw (no routing, no fence).
			Map<String, DirectoryEntry> owners = new HashMap<>();
			for (String tenant : tenants) {
				owners.put(tenant, Internals.directory(tenancy).find(tenant).orElseThrow());
			}
			Map<String, Map<String, List<Long>>> rows = new HashMap<>(); // shard -> name -> ids
			for (String shard : PostgresCluster.SHARD_IDS) {
				Map<String, List<Long>> byName = new HashMap<>();
				new JdbcTemplate(Internals.topology(tenancy).shard(shard).dataSource()).query(
						"SELECT name, id FROM pg_jdbc_owner WHERE tenant_id = ANY (?)",
						rs -> {
							byName.computeIfAbsent(rs.getString(1), k -> new ArrayList<>()).add(rs.getLong(2));
						}, (Object) tenants.toArray(String[]::new));
				rows.put(shard, byName);
			}
			List<String> violations = new ArrayList<>();
			Map<String, LongAdder> outcomes = new TreeMap<>();
			int lost = 0;
			for (Call call : calls) {
				outcomes.computeIfAbsent(call.kind() + " " + call.outcome(), k -> new LongAdder()).increment();
				String owner = owners.get(call.tenant()).shardId();
				List<Long> onOwner = rows.get(owner).getOrDefault(call.name(), List.of());
				for (String shard : PostgresCluster.SHARD_IDS) {
					if (!shard.equals(owner) && rows.get(shard).containsKey(call.name())) {
						violations.add(call + ": a row on " + shard + ", the owner is " + owner);
					}
				}
				if (call.outcome().equals(Call.ACKNOWLEDGED)) {
					if (onOwner.isEmpty()) {
						lost++;
						violations.add(call + ": acknowledged, but no row on the owner " + owner);
					}
					else if (onOwner.size() > 1 || !onOwner.get(0).equals(call.id())) {
						violations.add(call + ": acknowledged, rows on the owner with ids " + onOwner);
					}
				}
				else {
					if (!onOwner.isEmpty()) {
						violations.add(call + ": not acknowledged, but rows on the owner with ids " + onOwner);
					}
					if (call.kind() == Kind.RECIPE || !call.outcome().equals(Call.REFUSED)) {
						violations.add(call + ": neither acknowledged nor refused as a mismatch");
					}
				}
			}
			long mismatches = calls.stream().filter(c -> c.outcome().equals(Call.REFUSED)).count();
			System.out.printf("[jdbc-save] %d s, %d moves, %d calls in %d attempts, %d lost; rejected LOSSY %d, "
					+ "RECIPE %d, by reason %s; outcomes %s; violations %d%n", RUN.toSeconds(), moves, calls.size(),
					service.attempts() - attemptsBefore, lost, rejections.of(Kind.LOSSY) - lossyBefore,
					rejections.of(Kind.RECIPE) - recipeBefore,
					rejections.reasons, outcomes, violations.size());
			violations.stream().limit(20).forEach(v -> System.out.println("[jdbc-save]   " + v));

			assertThat(moves).as("moves").isPositive();
			assertThat(rejections.of(Kind.LOSSY) - lossyBefore).as("fence rejections of lossy saves, retried")
				.isPositive();
			assertThat(rejections.of(Kind.RECIPE) - recipeBefore).as("fence rejections of saves with assignId, retried")
				.isPositive();
			assertThat(violations).as("violations").isEmpty();
			assertThat(mismatches).as("lossy re-runs refused with RerunMismatchException").isPositive();
		}
		finally {
			stop.set(true);
			writers.shutdownNow();
		}
	}

	/** One call of a writer, as a new owner: its outcome as the caller saw it. */
	static Call call(OwnerService service, Kind kind, String tenant) {
		Owner owner = new Owner(UUID.randomUUID().toString());
		try {
			TenantContext.runAs(tenant, () -> {
				if (kind == Kind.LOSSY) {
					service.register(owner);
				}
				else if (kind == Kind.LOSSY_STATEMENT) {
					service.registerWithStatement(owner);
				}
				else {
					service.registerAssigningId(owner);
				}
			});
			return new Call(kind, tenant, owner.getName(), owner.getId(), Call.ACKNOWLEDGED);
		}
		catch (RerunMismatchException ex) {
			return new Call(kind, tenant, owner.getName(), owner.getId(), Call.REFUSED);
		}
		catch (RuntimeException ex) {
			return new Call(kind, tenant, owner.getName(), owner.getId(), ex.getClass().getName() + ": "
					+ ex.getMessage());
		}
	}

}
