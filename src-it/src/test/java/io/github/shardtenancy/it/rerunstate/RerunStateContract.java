package io.github.shardtenancy.it.rerunstate;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.Stream;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.github.shardtenancy.DirectoryEntry;
import io.github.shardtenancy.RerunMismatchException;
import io.github.shardtenancy.ShardTenancy;
import io.github.shardtenancy.TenantAdmin;
import io.github.shardtenancy.TenantContext;
import io.github.shardtenancy.boot.retry.ShardTenancyRetry;
import io.github.shardtenancy.internal.Internals;
import io.github.shardtenancy.internal.fence.FenceState;
import io.github.shardtenancy.internal.fence.ShardFence;
import io.github.shardtenancy.internal.topology.Topology;
import io.github.shardtenancy.it.boot.orders.AttemptRecorder;
import io.github.shardtenancy.it.rerunstate.Owners.Path;
import io.github.shardtenancy.it.rerunstate.Owners.Recipe;
import io.github.shardtenancy.micrometer.ShardTenancyMetrics;
import io.github.shardtenancy.retry.FenceRejection;
import io.github.shardtenancy.retry.RetryAttempts;
import io.github.shardtenancy.retry.RetrySettings;
import io.github.shardtenancy.retry.RetrySettings.RerunCheck;
import io.github.shardtenancy.spi.ShardTenancyObserver;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.MethodSource;
import org.slf4j.LoggerFactory;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.jdbc.core.JdbcTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

/**
 * Issue 33 on one database kind (the subclasses): a retried {@code @Transactional} service method runs again with the
 * argument objects the failed attempt changed. A plain JDBC repository of the usual shape set the object's id before
 * its INSERT; the INSERT (or a later statement of the attempt) was rejected and rolled back; the re-run took the
 * object for saved, ran {@code UPDATE ... WHERE id = ?}, matched no row and committed nothing, and the caller got a
 * success. Now that re-run fails with {@link RerunMismatchException} and nothing commits, and the recipes
 * ({@code ShardTenancy.assignId}/{@code assignIntId}, {@link RetryAttempts#onRollback}) write the row once.
 *
 * <p>The matrix: Spring's JDBC APIs ({@link Path}) x the transaction manager ({@link Manager}: Boot's
 * {@code JpaTransactionManager} or a {@code JdbcTransactionManager}) x where the attempt fails ({@link Rejection}):
 * the tenant's fence FROZEN for the first attempt (the INSERT is rejected, nothing written yet; set back to OWNED
 * before the retry, as a move's freeze ends), or a genuine serialization failure raised by the database after the
 * INSERT succeeded inside the attempt (REPEATABLE READ: a concurrent transaction of the same tenant updates a row the
 * attempt read, and the attempt's own update of that row fails with SQLSTATE 40001).
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class RerunStateContract {

	/** The transaction manager of the {@code @Transactional} method. */
	enum Manager {

		JPA, JDBC

	}

	/** Where the first attempt fails. */
	enum Rejection {

		/** The fence is FROZEN for the first attempt: its first write is rejected (SQLSTATE 40001, FROZEN). */
		FROZEN_BEFORE_THE_FIRST_WRITE,

		/**
		 * The first attempt's INSERT succeeds, then a later UPDATE fails with a genuine serialization failure
		 * (SQLSTATE 40001 without the fence marker).
		 */
		SERIALIZATION_FAILURE_AFTER_THE_FIRST_WRITE

	}

	ConfigurableApplicationContext app;

	RerunStateApplication.Work work;

	Owners owners;

	AttemptRecorder recorder;

	JdbcTemplate jdbc;

	Topology topology;

	ShardTenancy tenancy;

	final SimpleMeterRegistry registry = new SimpleMeterRegistry();

	final List<String> mismatches = new CopyOnWriteArrayList<>();

	final ShardTenancyObserver mismatchObserver = new ShardTenancyObserver() {
		@Override
		public void rerunMismatch(String tenantId, String table) {
			RerunStateContract.this.mismatches.add(tenantId + "/" + table);
		}
	};

	String tenant;

	DirectoryEntry entry;

	private TenantContext.Scope scope;

	/** @return the directory's, shard-1's and shard-2's connection properties */
	abstract List<String> databaseProperties();

	@BeforeAll
	void start() {
		List<String> properties = new ArrayList<>(databaseProperties());
		properties.addAll(List.of("shard-tenancy.liquibase.shard-changelogs=db/it-rerun-state/owners.xml",
				"shard-tenancy.tenant-tables=rs_owner:tenant_id,rs_pet:tenant_id,rs_tally:tenant_id,rs_setting:tenant_id",
				"shard-tenancy.sync.interval=1h", "shard-tenancy.sync.listen=false",
				"shard-tenancy.retry.max-delay=20ms", "shard-tenancy.actor=rerun-state", "spring.liquibase.enabled=false",
				"spring.jmx.enabled=false"));
		this.app = new SpringApplicationBuilder(RerunStateApplication.class).web(WebApplicationType.NONE)
			.properties(properties.toArray(String[]::new))
			.run();
		this.work = this.app.getBean(RerunStateApplication.Work.class);
		this.owners = this.app.getBean(Owners.class);
		this.recorder = this.app.getBean(AttemptRecorder.class);
		this.jdbc = this.app.getBean(JdbcTemplate.class);
		this.tenancy = this.app.getBean(ShardTenancy.class);
		this.topology = Internals.topology(this.tenancy);
		this.app.getBean(ShardTenancyMetrics.class).bindTo(this.registry);
		this.tenancy.addObserver(this.mismatchObserver);
	}

	@AfterAll
	void stop() {
		if (this.app != null) {
			this.app.close();
		}
	}

	@BeforeEach
	void newTenant() {
		this.tenant = "rs-" + UUID.randomUUID().toString().substring(0, 8);
		this.entry = this.app.getBean(TenantAdmin.class).create(this.tenant, "shard-1");
		this.recorder.reset();
		this.work.reset();
		this.owners.reset();
		this.mismatches.clear();
		this.scope = TenantContext.bind(this.tenant);
		this.owners.createTally();
	}

	@AfterEach
	void unbind() {
		this.scope.close();
	}

	static Stream<Arguments> pathsManagersRejections() {
		List<Arguments> all = new ArrayList<>();
		for (Path path : Path.values()) {
			for (Manager manager : Manager.values()) {
				for (Rejection rejection : Rejection.values()) {
					all.add(Arguments.of(path, manager, rejection));
				}
			}
		}
		return all.stream();
	}

	static Stream<Arguments> recipesPathsManagersRejections() {
		return Stream.of(Recipe.ASSIGN_ID, Recipe.ON_ROLLBACK)
			.flatMap((recipe) -> pathsManagersRejections().map((a) -> Arguments.of(recipe, a.get()[0], a.get()[1],
					a.get()[2])));
	}

	static Stream<Arguments> managersRejections() {
		return Stream.of(Manager.values())
			.flatMap((manager) -> Stream.of(Rejection.values()).map((rejection) -> Arguments.of(manager, rejection)));
	}

	// --- the reproduction -------------------------------------------------------------------------------------------

	@ParameterizedTest(name = "{0}, {1}, {2}")
	@MethodSource("pathsManagersRejections")
	@DisplayName("a repository that set the id before its rejected INSERT: the re-run's UPDATE of no row fails with RerunMismatchException, nothing written (was: success, 0 rows)")
	void naiveRepositoryFailsInsteadOfCommittingNothing(Path path, Manager manager, Rejection rejection) {
		Owner owner = new Owner("naive " + path, List.of());
		double countedBefore = mismatchesCounted();

		Throwable thrown = catchThrowable(() -> call(manager, rejection, () -> this.owners.save(path, Recipe.NAIVE, owner)));

		assertThat(thrown).as("the call's outcome (owner rows written: %d)", ownerRows())
			.isInstanceOfSatisfying(RerunMismatchException.class, (ex) -> {
				assertThat(ex.table()).isEqualTo("rs_owner");
				assertThat(ex.tenantId()).isEqualTo(this.tenant);
				assertThat(ex).hasMessageContaining("RetryAttempts.onRollback").hasMessageContaining("UPDATE rs_owner");
			});
		assertFirstAttemptFailed(rejection);
		assertThat(this.work.runs()).isEqualTo(2);
		assertThat(this.work.lastRunHadEntityManager()).isEqualTo(manager == Manager.JPA);
		assertThat(ownerRows()).isZero();
		// nothing of the re-run committed: the counter holds only the concurrent transaction's increment
		assertThat(rawTally()).isEqualTo(rejection == Rejection.FROZEN_BEFORE_THE_FIRST_WRITE ? 0 : 1);
		assertThat(this.mismatches).containsExactly(this.tenant + "/rs_owner");
		assertThat(mismatchesCounted() - countedBefore).isEqualTo(1.0);
	}

	@ParameterizedTest(name = "{0}, {1}, {2}, {3}")
	@MethodSource("recipesPathsManagersRejections")
	@DisplayName("a repository that takes its id with assignId or registers onRollback: the re-run inserts, one row, the object carries the retry's id")
	void recipesWriteTheRowOnce(Recipe recipe, Path path, Manager manager, Rejection rejection) {
		Owner owner = new Owner("recipe " + recipe + " " + path, List.of());

		call(manager, rejection, () -> this.owners.save(path, recipe, owner));

		assertFirstAttemptFailed(rejection);
		assertThat(this.work.runs()).isEqualTo(2);
		assertThat(this.work.lastRunHadEntityManager()).isEqualTo(manager == Manager.JPA);
		List<Long> assigned = this.owners.assigned();
		assertThat(assigned).as("an id per attempt").hasSize(2).doesNotHaveDuplicates();
		assertThat(owner.getId()).isEqualTo(assigned.get(1));
		assertThat(ownerIds()).containsExactly(owner.getId());
		assertThat(rawTally()).isEqualTo(rejection == Rejection.FROZEN_BEFORE_THE_FIRST_WRITE ? 1 : 2);
		assertThat(this.mismatches).isEmpty();
	}

	@ParameterizedTest(name = "{0}, {1}, {2}")
	@CsvSource({ "NAIVE, JPA, FROZEN_BEFORE_THE_FIRST_WRITE", "NAIVE, JDBC, SERIALIZATION_FAILURE_AFTER_THE_FIRST_WRITE",
			"ASSIGN_ID, JPA, SERIALIZATION_FAILURE_AFTER_THE_FIRST_WRITE", "ASSIGN_ID, JDBC, FROZEN_BEFORE_THE_FIRST_WRITE",
			"ON_ROLLBACK, JPA, FROZEN_BEFORE_THE_FIRST_WRITE", "ON_ROLLBACK, JDBC, SERIALIZATION_FAILURE_AFTER_THE_FIRST_WRITE" })
	@DisplayName("Integer ids (assignIntId): the naive repository fails with RerunMismatchException, the recipes write one row")
	void integerIds(Recipe recipe, Manager manager, Rejection rejection) {
		Pet pet = new Pet("rex");

		Throwable thrown = catchThrowable(() -> call(manager, rejection, () -> this.owners.savePet(recipe, pet)));

		assertFirstAttemptFailed(rejection);
		assertThat(this.work.runs()).isEqualTo(2);
		if (recipe == Recipe.NAIVE) {
			assertThat(thrown).as("the call's outcome (pet rows written: %d)", petRows())
				.isInstanceOfSatisfying(RerunMismatchException.class, (ex) -> assertThat(ex.table()).isEqualTo("rs_pet"));
			assertThat(petRows()).isZero();
		}
		else {
			assertThat(thrown).isNull();
			List<Long> assigned = this.owners.assigned();
			assertThat(assigned).hasSize(2).doesNotHaveDuplicates();
			assertThat(pet.getId().longValue()).isEqualTo(assigned.get(1));
			assertThat(petRows()).isEqualTo(1);
			assertThat(count("SELECT count(*) FROM rs_pet WHERE tenant_id = ? AND id = " + pet.getId())).isEqualTo(1);
		}
	}

	// --- state the body changed on a DTO ----------------------------------------------------------------------------

	@ParameterizedTest(name = "{0}, {1}, undone: {2}")
	@CsvSource({ "JPA, FROZEN_BEFORE_THE_FIRST_WRITE, false", "JDBC, SERIALIZATION_FAILURE_AFTER_THE_FIRST_WRITE, false",
			"JDBC, FROZEN_BEFORE_THE_FIRST_WRITE, true", "JPA, SERIALIZATION_FAILURE_AFTER_THE_FIRST_WRITE, true" })
	@DisplayName("a body that sets a status and drains a list of its argument: the re-run sees them as the failed attempt left them, unless it registered onRollback")
	void mutatedArgument(Manager manager, Rejection rejection, boolean undone) {
		Owner owner = new Owner("mutated", List.of("a", "b", "c"));
		List<String> seen = new CopyOnWriteArrayList<>();

		call(manager, rejection, () -> {
			seen.add(owner.getStatus() + " " + owner.pets());
			String status = owner.getStatus();
			owner.setStatus("SUBMITTED");
			if (undone) {
				RetryAttempts.onRollback(() -> owner.setStatus(status));
			}
			for (String name; (name = owner.pets().poll()) != null;) {
				if (undone) {
					String taken = name;
					RetryAttempts.onRollback(() -> owner.pets().addFirst(taken));
				}
				this.owners.insertPet(name);
			}
		});

		assertFirstAttemptFailed(rejection);
		assertThat(owner.getStatus()).isEqualTo("SUBMITTED");
		assertThat(owner.pets()).isEmpty();
		if (undone) {
			assertThat(seen).containsExactly("DRAFT [a, b, c]", "DRAFT [a, b, c]");
			assertThat(petNames()).containsExactly("a", "b", "c");
		}
		else if (rejection == Rejection.FROZEN_BEFORE_THE_FIRST_WRITE) {
			// The contract: the library does not undo what the body changed outside the database. The first attempt
			// took "a" and its INSERT was rejected; the re-run got the DTO as that attempt left it and committed the
			// rest, without an error (no UPDATE, nothing for the check to see).
			assertThat(seen).containsExactly("DRAFT [a, b, c]", "SUBMITTED [b, c]");
			assertThat(petNames()).containsExactly("b", "c");
		}
		else {
			// The first attempt inserted all three, then failed; the re-run found the list drained.
			assertThat(seen).containsExactly("DRAFT [a, b, c]", "SUBMITTED []");
			assertThat(petNames()).isEmpty();
		}
		assertThat(this.mismatches).isEmpty();
	}

	// --- what the check leaves alone --------------------------------------------------------------------------------

	@ParameterizedTest(name = "{0}, {1}")
	@MethodSource("managersRejections")
	@DisplayName("an upsert body (UPDATE of no row, then INSERT) rejected and run again does not trip the check: one row")
	void upsertDoesNotTrip(Manager manager, Rejection rejection) {
		call(manager, rejection, () -> this.owners.putSetting("theme", "dark"));

		assertFirstAttemptFailed(rejection);
		assertThat(this.work.runs()).isEqualTo(2);
		assertThat(count("SELECT count(*) FROM rs_setting WHERE tenant_id = ? AND name = 'theme' AND setting_value = 'dark'"))
			.isEqualTo(1);
		assertThat(this.mismatches).isEmpty();
	}

	@Test
	@DisplayName("the default rerun-check is FAIL")
	void defaultIsFail() {
		assertThat(this.app.getBean(ShardTenancyRetry.class).settings().rerunCheck()).isEqualTo(RerunCheck.FAIL);
	}

	@ParameterizedTest(name = "{0}, {1}")
	@CsvSource({ "WARN, JPA", "WARN, JDBC", "OFF, JPA", "OFF, JDBC" })
	@DisplayName("rerun-check warn lets the call return and logs a warning (and counts it); off does neither")
	void warnAndOff(RerunCheck check, Manager manager) {
		RetrySettings settings = this.app.getBean(ShardTenancyRetry.class).settings().withRerunCheck(check);
		ShardTenancyRetry retry = new ShardTenancyRetry(this.tenancy.router(), this.tenancy.observer(), settings,
				List.of(this.recorder));
		Owner owner = new Owner("checked " + check, List.of());
		double countedBefore = mismatchesCounted();
		Logger logger = (Logger) LoggerFactory.getLogger(RetryAttempts.class);
		ListAppender<ILoggingEvent> log = new ListAppender<>();
		log.start();
		logger.addAppender(log);
		try {
			Runnable attempt = prepare(Rejection.FROZEN_BEFORE_THE_FIRST_WRITE,
					() -> this.owners.save(Path.JDBC_TEMPLATE, Recipe.NAIVE, owner));
			// the programmatic retry with the mode around the @Transactional method, which then runs once per attempt
			retry.run(() -> transactional(manager, Rejection.FROZEN_BEFORE_THE_FIRST_WRITE, attempt));
		}
		finally {
			logger.detachAppender(log);
		}

		assertFirstAttemptFailed(Rejection.FROZEN_BEFORE_THE_FIRST_WRITE);
		assertThat(this.work.runs()).isEqualTo(2);
		// what these modes are for: the re-run commits, and it wrote no owner row (issue 33's loss, let through)
		assertThat(ownerRows()).isZero();
		assertThat(rawTally()).isEqualTo(1);
		List<ILoggingEvent> warnings = log.list.stream()
			.filter((e) -> e.getLevel() == Level.WARN && e.getFormattedMessage().contains("rs_owner"))
			.toList();
		if (check == RerunCheck.WARN) {
			assertThat(warnings).singleElement()
				.satisfies((e) -> assertThat(e.getFormattedMessage()).contains("'" + this.tenant + "'")
					.contains("UPDATE rs_owner")
					.contains("may commit without writing the row")
					.doesNotContain("Nothing was committed"));
			assertThat(this.mismatches).containsExactly(this.tenant + "/rs_owner");
			assertThat(mismatchesCounted() - countedBefore).isEqualTo(1.0);
		}
		else {
			assertThat(warnings).isEmpty();
			assertThat(this.mismatches).isEmpty();
			assertThat(mismatchesCounted() - countedBefore).isZero();
		}
	}

	// --- helpers ----------------------------------------------------------------------------------------------------

	/**
	 * Calls the {@code @Transactional} method of the manager with the body, the first attempt failing as the rejection
	 * says. Around the body, the attempt reads the tenant's counter first and writes it last (read + 1).
	 */
	void call(Manager manager, Rejection rejection, Runnable body) {
		transactional(manager, rejection, prepare(rejection, body));
	}

	/**
	 * Arms the rejection of the first attempt and wraps the body: the attempt reads the tenant's counter first and
	 * writes it last (read + 1).
	 * @return what the {@code @Transactional} method runs
	 */
	Runnable prepare(Rejection rejection, Runnable body) {
		AtomicBoolean concurrentUpdate = new AtomicBoolean(rejection == Rejection.SERIALIZATION_FAILURE_AFTER_THE_FIRST_WRITE);
		if (rejection == Rejection.FROZEN_BEFORE_THE_FIRST_WRITE) {
			fence(FenceState.FROZEN);
			this.recorder.beforeRetry((n) -> fence(FenceState.OWNED));
		}
		return () -> {
			int n = this.owners.tally();
			body.run();
			if (concurrentUpdate.getAndSet(false)) {
				bumpTallyConcurrently();
			}
			this.owners.setTally(n + 1);
		};
	}

	/** Calls the {@code @Transactional} method of the manager (at REPEATABLE READ for a serialization failure). */
	void transactional(Manager manager, Rejection rejection, Runnable attempt) {
		boolean repeatableRead = rejection == Rejection.SERIALIZATION_FAILURE_AFTER_THE_FIRST_WRITE;
		switch (manager) {
			case JPA -> {
				if (repeatableRead) {
					this.work.jpaRepeatableRead(attempt);
				}
				else {
					this.work.jpa(attempt);
				}
			}
			case JDBC -> {
				if (repeatableRead) {
					this.work.jdbcRepeatableRead(attempt);
				}
				else {
					this.work.jdbc(attempt);
				}
			}
		}
	}

	/** Another request of the same tenant, on another thread, increments the counter and commits (auto-commit). */
	private void bumpTallyConcurrently() {
		String t = this.tenant;
		CompletableFuture.runAsync(() -> TenantContext.runAs(t,
				() -> assertThat(this.jdbc.update("UPDATE rs_tally SET n = n + 1 WHERE tenant_id = ?", t)).isEqualTo(1)))
			.join();
	}

	private void fence(FenceState state) {
		ShardFence.set(this.topology.shard("shard-1").dataSource(), "shard-1", this.tenant, state, this.entry.version());
	}

	private void assertFirstAttemptFailed(Rejection rejection) {
		assertThat(this.recorder.retries()).isEqualTo(1);
		Throwable first = this.recorder.failures().get(0);
		if (rejection == Rejection.FROZEN_BEFORE_THE_FIRST_WRITE) {
			assertThat(FenceRejection.find(first)).as("fence rejection in %s", first).get()
				.extracting(FenceRejection::reason)
				.isEqualTo("FROZEN");
		}
		else {
			assertThat(FenceRejection.find(first)).as("no fence rejection in %s", first).isEmpty();
			assertThat(FenceRejection.findSerializationFailure(first)).as("serialization failure in %s", first)
				.isPresent();
		}
	}

	private double mismatchesCounted() {
		Counter counter = this.registry.find("shardtenancy.retries.mismatches").tag("table", "rs_owner").counter();
		return counter != null ? counter.count() : 0;
	}

	long ownerRows() {
		return count("SELECT count(*) FROM rs_owner WHERE tenant_id = ?");
	}

	long petRows() {
		return count("SELECT count(*) FROM rs_pet WHERE tenant_id = ?");
	}

	long rawTally() {
		return count("SELECT n FROM rs_tally WHERE tenant_id = ?");
	}

	List<Long> ownerIds() {
		return this.jdbc.queryForList("SELECT id FROM rs_owner WHERE tenant_id = ?", Long.class, this.tenant);
	}

	List<String> petNames() {
		return this.jdbc.queryForList("SELECT name FROM rs_pet WHERE tenant_id = ? ORDER BY name", String.class,
				this.tenant);
	}

	/** Runs a count query with the tenant as its one parameter, on shard-1's own pool (outside the library). */
	long count(String sql) {
		try (Connection c = this.topology.shard("shard-1").dataSource().getConnection();
				PreparedStatement ps = c.prepareStatement(sql)) {
			ps.setString(1, this.tenant);
			try (ResultSet rs = ps.executeQuery()) {
				rs.next();
				return rs.getLong(1);
			}
		}
		catch (SQLException ex) {
			throw new IllegalStateException(ex);
		}
	}

}
