package io.github.shardtenancy.boot.actuate;

import java.sql.Connection;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;

import io.github.shardtenancy.DirectoryEntry;
import io.github.shardtenancy.MoveStep;
import io.github.shardtenancy.ShardTenancy;
import io.github.shardtenancy.TenantAdmin;
import io.github.shardtenancy.TenantContext;
import io.github.shardtenancy.TenantMover;
import io.github.shardtenancy.TenantState;
import io.github.shardtenancy.boot.opsapp.AuditService;
import io.github.shardtenancy.boot.opsapp.OpsApplication;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.http.MediaType;
import org.springframework.test.web.servlet.MockMvc;
import org.springframework.test.web.servlet.ResultActions;
import org.springframework.test.web.servlet.setup.MockMvcBuilders;
import org.springframework.web.context.WebApplicationContext;

import static org.assertj.core.api.Assertions.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.awaitility.Awaitility.await;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.get;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.post;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.content;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.jsonPath;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.status;

/**
 * The {@code shardtenancy} endpoint over HTTP (Spring MVC, Actuator, Spring Data JPA, three H2 shards) with its
 * write access allowed ({@code management.endpoint.shardtenancy.access=unrestricted}): typed bodies, and each refused
 * read or move answered with its status and an RFC 9457 problem body, leaving the tenant where it was. The directory
 * is made unreadable by renaming its entry table for one test, as an outage would.
 */
@SpringBootTest(classes = OpsApplication.class, properties = {
		"shard-tenancy.web.access.policy=none",
		"shard-tenancy.directory.url=jdbc:h2:mem:ep-directory;DB_CLOSE_DELAY=-1;LOCK_TIMEOUT=10000",
		"shard-tenancy.shards.shard-1.url=jdbc:h2:mem:ep-shard-1;DB_CLOSE_DELAY=-1;LOCK_TIMEOUT=10000",
		"shard-tenancy.shards.shard-2.url=jdbc:h2:mem:ep-shard-2;DB_CLOSE_DELAY=-1;LOCK_TIMEOUT=10000",
		"shard-tenancy.shards.shard-3.url=jdbc:h2:mem:ep-shard-3;DB_CLOSE_DELAY=-1;LOCK_TIMEOUT=10000",
		"shard-tenancy.liquibase.shard-changelogs=db/ops-shard.xml", "shard-tenancy.sync.interval=1h",
		"shard-tenancy.retry.max-delay=20ms", "shard-tenancy.move.online-clean-delay=1h",
		"shard-tenancy.actor=endpoint-tests", "management.endpoints.web.exposure.include=shardtenancy",
		"management.endpoint.shardtenancy.access=unrestricted",
		"management.endpoint.shardtenancy.show-values=always" })
class ShardTenancyEndpointWebTests {

	private static final AtomicInteger TENANTS = new AtomicInteger();

	@Autowired
	private TenantAdmin admin;

	@Autowired
	private TenantMover mover;

	@Autowired
	private AuditService audit;

	@Autowired
	private ShardTenancy tenancy;

	@Autowired
	private WebApplicationContext context;

	private MockMvc mvc;

	@BeforeEach
	void mockMvc() {
		this.mvc = MockMvcBuilders.webAppContextSetup(this.context).build();
	}

	private static String newTenant(String prefix) {
		return prefix + "-" + TENANTS.incrementAndGet();
	}

	private ResultActions move(String tenant, String body) throws Exception {
		return this.mvc
			.perform(post("/actuator/shardtenancy/" + tenant).contentType(MediaType.APPLICATION_JSON).content(body));
	}

	private static void problem(ResultActions result, int status) throws Exception {
		result.andExpect(status().is(status))
			.andExpect(content().contentTypeCompatibleWith(MediaType.APPLICATION_PROBLEM_JSON))
			.andExpect(jsonPath("$.status").value(status))
			.andExpect(jsonPath("$.title").isString())
			.andExpect(jsonPath("$.detail").isString());
	}

	/** The tenant is where it was, with the same entry, and no move of it is recorded. */
	private void unchanged(String tenant, DirectoryEntry before) {
		assertThat(this.admin.find(tenant)).as("the directory entry of " + tenant).contains(before);
		assertThat(this.mover.findActive(tenant)).as("a move of " + tenant).isEmpty();
	}

	@Test
	@DisplayName("the overview is a typed body: directory version, readiness, cache and every shard's pool")
	void overview() throws Exception {
		this.mvc.perform(get("/actuator/shardtenancy"))
			.andExpect(status().isOk())
			.andExpect(jsonPath("$.ready").value(true))
			.andExpect(jsonPath("$.directoryVersion").isNumber())
			.andExpect(jsonPath("$.directoryDownPolicy").value("SERVE_FROM_CACHE"))
			.andExpect(jsonPath("$.directoryDownSince").doesNotExist())
			.andExpect(jsonPath("$.listener").doesNotExist())
			.andExpect(jsonPath("$.cache.hits").isNumber())
			.andExpect(jsonPath("$.cache.servedStale").isNumber())
			.andExpect(jsonPath("$.shards.shard-3.fenceDialect").isString())
			.andExpect(jsonPath("$.shards.shard-1.poolName").value("shard-shard-1"))
			.andExpect(jsonPath("$.shards.shard-2.maximumPoolSize").isNumber())
			.andExpect(jsonPath("$.shards.shard-2.connections.threadsAwaiting").isNumber());
	}

	@Test
	@DisplayName("a move answers 200 with the recorded move; a second move while the first is unfinished (flipped, not cleaned) answers 409 naming it")
	void moveThenConflict() throws Exception {
		String tenant = newTenant("mv");
		this.admin.create(tenant, "shard-1");
		TenantContext.runAs(tenant, () -> this.audit.record("to move"));

		String moveId = com.jayway.jsonpath.JsonPath.read(move(tenant, "{\"targetShard\": \"shard-2\"}")
			.andExpect(status().isOk())
			.andExpect(jsonPath("$.tenant").value(tenant))
			.andExpect(jsonPath("$.sourceShard").value("shard-1"))
			.andExpect(jsonPath("$.targetShard").value("shard-2"))
			.andExpect(jsonPath("$.step").isString())
			.andExpect(jsonPath("$.createdAt").isString())
			.andReturn()
			.getResponse()
			.getContentAsString(), "$.moveId");
		await("the move of " + tenant + " flips").atMost(Duration.ofSeconds(60))
			.until(() -> this.mover.status(moveId).step() == MoveStep.FLIPPED);

		this.mvc.perform(get("/actuator/shardtenancy/" + tenant))
			.andExpect(status().isOk())
			.andExpect(jsonPath("$.owner").value("shard-2"))
			.andExpect(jsonPath("$.directory.state").value("ACTIVE"))
			.andExpect(jsonPath("$.move.moveId").value(moveId))
			.andExpect(jsonPath("$.move.step").value("FLIPPED"))
			.andExpect(jsonPath("$.move.freezeWindowMs").isNumber());
		DirectoryEntry flipped = this.admin.find(tenant).orElseThrow();

		ResultActions conflict = move(tenant, "{\"targetShard\": \"shard-3\"}");
		problem(conflict, 409);
		conflict.andExpect(jsonPath("$.exception").value("MoveInProgressException"))
			.andExpect(jsonPath("$.moveId").value(moveId))
			.andExpect(jsonPath("$.tenant").value(tenant))
			.andExpect(jsonPath("$.targetShard").value("shard-3"))
			.andExpect(jsonPath("$.shard").value("shard-2"))
			.andExpect(jsonPath("$.directoryVersion").value((Object) flipped.version()));
		assertThat(this.admin.find(tenant)).contains(flipped);
		assertThat(this.mover.findActive(tenant)).get().extracting((s) -> s.moveId()).isEqualTo(moveId);
		assertThat(TenantContext.callAs(tenant, () -> this.audit.count())).isEqualTo(1);
	}

	@ParameterizedTest(name = "a move {0} answers {3} and changes nothing")
	@CsvSource(delimiter = '|', value = {
			"to the shard the tenant is on | false | {\"targetShard\": \"shard-1\"} | 409 | MoveException | already lives",
			"of a tenant that is not ACTIVE (deleted) | true | {\"targetShard\": \"shard-2\"} | 409 | MoveException | DELETED",
			"to an unknown shard | false | {\"targetShard\": \"shard-9\"} | 400 | UnknownShardException | shard-9",
			"with a blank target shard | false | {\"targetShard\": \" \"} | 400 | | targetShard",
			"without a target shard | false | {} | 400 | | targetShard" })
	void refusedMove(String what, boolean deleted, String body, int status, String exception, String reason)
			throws Exception {
		String tenant = newTenant("refused");
		DirectoryEntry before = this.admin.create(tenant, "shard-1");
		if (deleted) {
			before = this.admin.delete(tenant);
			assertThat(before.state()).isEqualTo(TenantState.DELETED);
		}

		ResultActions result = move(tenant, body);
		problem(result, status);
		result.andExpect(jsonPath("$.tenant").value(tenant))
			.andExpect(jsonPath("$.detail").value(containsString(reason)));
		if (exception != null) {
			result.andExpect(jsonPath("$.exception").value(exception));
		}
		unchanged(tenant, before);
	}

	@Test
	@DisplayName("while the directory cannot be read, the tenant read and the move answer 503 and nothing is recorded")
	void directoryUnavailable() throws Exception {
		String tenant = newTenant("down");
		DirectoryEntry before = this.admin.create(tenant, "shard-1");
		try (Connection c = this.tenancy.directoryDataSource().getConnection()) {
			c.createStatement().execute("ALTER TABLE shard_directory_entry RENAME TO shard_directory_entry_away");
		}
		try {
			problem(this.mvc.perform(get("/actuator/shardtenancy/" + tenant)), 503);
			ResultActions result = move(tenant, "{\"targetShard\": \"shard-2\"}");
			problem(result, 503);
			result.andExpect(jsonPath("$.exception").value("DirectoryUnavailableException"))
				.andExpect(jsonPath("$.tenant").value(tenant));
		}
		finally {
			try (Connection c = this.tenancy.directoryDataSource().getConnection()) {
				c.createStatement().execute("ALTER TABLE shard_directory_entry_away RENAME TO shard_directory_entry");
			}
		}
		unchanged(tenant, before);
	}

	@Test
	@DisplayName("an invalid tenant id answers 400, on the read and on the move")
	void invalidTenantId() throws Exception {
		ResultActions read = this.mvc.perform(get("/actuator/shardtenancy/bad!id"));
		problem(read, 400);
		read.andExpect(jsonPath("$.detail").value(containsString("'bad!id'")))
			.andExpect(jsonPath("$.tenant").doesNotExist());
		ResultActions move = move("bad!id", "{\"targetShard\": \"shard-2\"}");
		problem(move, 400);
		move.andExpect(jsonPath("$.tenant").doesNotExist()).andExpect(jsonPath("$.targetShard").value("shard-2"));
	}

	@Test
	@DisplayName("an unknown tenant answers 404, on the read and on the move, and the move creates nothing")
	void unknownTenant() throws Exception {
		String tenant = newTenant("ghost");

		problem(this.mvc.perform(get("/actuator/shardtenancy/" + tenant)), 404);
		ResultActions result = move(tenant, "{\"targetShard\": \"shard-2\"}");
		problem(result, 404);
		result.andExpect(jsonPath("$.exception").value("UnknownTenantException"))
			.andExpect(jsonPath("$.tenant").value(tenant));
		assertThat(this.admin.find(tenant)).isEmpty();
		assertThat(this.mover.findActive(tenant)).isEmpty();
	}

}
