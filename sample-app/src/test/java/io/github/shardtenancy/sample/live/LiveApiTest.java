package io.github.shardtenancy.sample.live;

import java.io.IOException;
import java.net.ConnectException;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.NetworkInterface;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Predicate;

import io.github.shardtenancy.TenantAdmin;
import io.github.shardtenancy.DirectoryEntry;
import io.github.shardtenancy.TenantState;
import io.github.shardtenancy.ShardTopology;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.MissingNode;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;
import static org.awaitility.Awaitility.await;

/**
 * The live page's JSON API over real HTTP, on a real server and three real H2 shards (no browser needed).
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT, properties = {
		"shard-tenancy.directory.url=jdbc:h2:mem:live-api-directory;DB_CLOSE_DELAY=-1",
		"shard-tenancy.shards.shard-1.url=jdbc:h2:mem:live-api-shard-1;DB_CLOSE_DELAY=-1;LOCK_TIMEOUT=10000",
		"shard-tenancy.shards.shard-2.url=jdbc:h2:mem:live-api-shard-2;DB_CLOSE_DELAY=-1;LOCK_TIMEOUT=10000",
		"shard-tenancy.shards.shard-3.url=jdbc:h2:mem:live-api-shard-3;DB_CLOSE_DELAY=-1;LOCK_TIMEOUT=10000",
		"sample.seed.tenants=6", "shard-tenancy.move.clean-delay=0s" })
@DisplayName("the live page's API")
class LiveApiTest {

	@LocalServerPort
	int port;

	@Autowired
	JsonMapper json;

	@Autowired
	TenantAdmin directory;

	@Autowired
	ShardTopology topology;

	private final HttpClient http = HttpClient.newHttpClient();

	@Test
	@DisplayName("the page is served at /live")
	void pageIsServedAtLive() throws Exception {
		HttpClient following = HttpClient.newBuilder().followRedirects(HttpClient.Redirect.NORMAL).build();
		HttpResponse<String> page = following.send(HttpRequest.newBuilder(uri("/live")).build(),
				HttpResponse.BodyHandlers.ofString());
		assertThat(page.statusCode()).isEqualTo(200);
		assertThat(page.body()).contains("<script src=\"live.js\"></script>").contains("id=\"move-form\"");
		assertThat(page.body()).as("the page says it is a demo without authentication")
			.contains("Demo only.")
			.contains("every tenant's orders without any authentication");
	}

	@Test
	@DisplayName("the sample listens on the loopback interface only: an address of another interface is refused")
	void listensOnLoopbackOnly() throws Exception {
		assertThat(this.http.send(HttpRequest.newBuilder(uri("/live/api/state")).build(),
				HttpResponse.BodyHandlers.discarding()).statusCode()).isEqualTo(200);
		InetAddress other = NetworkInterface.networkInterfaces()
			.flatMap(NetworkInterface::inetAddresses)
			.filter((address) -> address instanceof Inet4Address && !address.isLoopbackAddress())
			.findFirst()
			.orElse(null);
		assumeTrue(other != null, "this machine has no IPv4 address besides the loopback one");
		try (Socket socket = new Socket()) {
			assertThatThrownBy(() -> socket.connect(new InetSocketAddress(other, this.port), 2000))
				.as("a connection to %s:%d", other.getHostAddress(), this.port)
				.isInstanceOf(ConnectException.class);
		}
	}

	@Test
	@DisplayName("the state lists every tenant under the shard the directory names, at the directory's version")
	void stateListsEveryTenantUnderItsOwner() throws Exception {
		Map<String, String> owners = new TreeMap<>();
		long version = this.directory.snapshot(entry -> owners.put(entry.tenantId(), entry.shardId()));

		JsonNode state = state();

		assertThat(state.get("directoryVersion").asLong()).isEqualTo(version);
		Map<String, String> listed = new TreeMap<>();
		for (JsonNode shard : state.get("shards")) {
			for (JsonNode tenant : shard.get("tenants")) {
				assertThat(listed.put(tenant.get("id").asString(), shard.get("id").asString()))
					.as("tenant %s listed once", tenant.get("id").asString())
					.isNull();
			}
		}
		assertThat(listed).isEqualTo(owners).hasSize(6);
		assertThat(state.get("shards")).hasSize(3);
	}

	@Nested
	@DisplayName("moves")
	class Moves {

		@Test
		@DisplayName("a move asked for over the API ends with the tenant ACTIVE on the target and its rows moved")
		void moveEndsWithTenantOnTarget() throws Exception {
			String tenant = "tenant-02";
			DirectoryEntry before = LiveApiTest.this.directory.find(tenant).orElseThrow();
			String target = otherShard(before.shardId());
			assertThat(customersOn(before.shardId(), tenant)).isEqualTo(1);

			HttpResponse<String> started = post("/live/api/moves",
					"{\"tenant\":\"" + tenant + "\",\"target\":\"" + target + "\",\"stepPauseMs\":0}");
			assertThat(started.statusCode()).isEqualTo(202);

			JsonNode move = awaitState(s -> "DONE".equals(move(s, tenant).path("step").asString(null)))
				.path("moves");
			JsonNode done = move.valueStream().filter(m -> tenant.equals(m.get("tenant").asString())).findFirst()
				.orElseThrow();
			assertThat(done.get("source").asString()).isEqualTo(before.shardId());
			assertThat(done.get("target").asString()).isEqualTo(target);
			assertThat(done.get("finished").asBoolean()).isTrue();
			assertThat(done.path("error").asString(null)).isNull();
			DirectoryEntry after = LiveApiTest.this.directory.find(tenant).orElseThrow();
			assertThat(after.shardId()).isEqualTo(target);
			assertThat(after.state()).isEqualTo(TenantState.ACTIVE);
			assertThat(customersOn(target, tenant)).isEqualTo(1);
			assertThat(customersOn(before.shardId(), tenant)).isZero();
		}

		@Test
		@DisplayName("a move to the tenant's own shard is refused with 409 and changes nothing")
		void moveToOwnShardIsRefused() throws Exception {
			DirectoryEntry before = LiveApiTest.this.directory.find("tenant-04").orElseThrow();
			HttpResponse<String> refused = post("/live/api/moves",
					"{\"tenant\":\"tenant-04\",\"target\":\"" + before.shardId() + "\"}");
			assertThat(refused.statusCode()).isEqualTo(409);
			assertThat(LiveApiTest.this.json.readTree(refused.body()).get("error").asString())
				.contains("tenant-04").contains(before.shardId());
			assertThat(LiveApiTest.this.directory.find("tenant-04").orElseThrow()).isEqualTo(before);
		}

		@Test
		@DisplayName("an unknown shard, a missing tenant or a pause out of range is refused with 400, an unknown "
				+ "tenant with 404")
		void badMoveRequestsAreRefused() throws Exception {
			assertThat(post("/live/api/moves", "{\"tenant\":\"tenant-04\",\"target\":\"shard-9\"}").statusCode())
				.isEqualTo(400);
			assertThat(post("/live/api/moves", "{\"target\":\"shard-1\"}").statusCode()).isEqualTo(400);
			assertThat(post("/live/api/moves", "{\"tenant\":\"tenant-04\",\"target\":\"shard-1\",\"stepPauseMs\":"
					+ (LiveMoves.MAX_STEP_PAUSE_MS + 1) + "}").statusCode()).isEqualTo(400);
			assertThat(post("/live/api/moves", "{\"tenant\":\"no-such-tenant\",\"target\":\"shard-1\"}").statusCode())
				.isEqualTo(404);
		}

	}

	@Nested
	@DisplayName("bursts")
	class Bursts {

		@Test
		@DisplayName("a burst of 3 threads x 7 orders commits exactly 21 orders on the tenant's shard and counts "
				+ "their attempts")
		void burstCommitsEveryOrder() throws Exception {
			String tenant = "tenant-03";
			String owner = LiveApiTest.this.directory.find(tenant).orElseThrow().shardId();
			long attemptsBefore = state().get("retries").get("attempts").asLong();

			HttpResponse<String> started = post("/live/api/bursts",
					"{\"tenant\":\"" + tenant + "\",\"threads\":3,\"ordersPerThread\":7}");
			assertThat(started.statusCode()).isEqualTo(202);
			int id = LiveApiTest.this.json.readTree(started.body()).get("id").asInt();

			JsonNode state = awaitState(s -> burst(s, id).path("running").asInt(-1) == 0);
			JsonNode burst = burst(state, id);
			assertThat(burst.get("committed").asLong()).isEqualTo(21);
			assertThat(burst.get("failed").asLong()).isZero();
			assertThat(ordersOn(owner, tenant)).isEqualTo(21);
			// each order is an outermost transaction under the library's retry, seen by the page's counter
			assertThat(state.get("retries").get("attempts").asLong()).isGreaterThan(attemptsBefore);
		}

		@Test
		@DisplayName("a burst with no threads, too many orders or a negative or too long pause is refused with 400, an "
				+ "unknown tenant with 404")
		void badBurstRequestsAreRefused() throws Exception {
			assertThat(post("/live/api/bursts", "{\"tenant\":\"tenant-05\",\"threads\":0}").statusCode())
				.isEqualTo(400);
			assertThat(post("/live/api/bursts", "{\"tenant\":\"tenant-05\",\"ordersPerThread\":"
					+ (LiveBursts.MAX_ORDERS_PER_THREAD + 1) + "}").statusCode()).isEqualTo(400);
			assertThat(post("/live/api/bursts", "{\"tenant\":\"tenant-05\",\"pauseMs\":-1}").statusCode())
				.isEqualTo(400);
			assertThat(post("/live/api/bursts", "{\"tenant\":\"tenant-05\",\"pauseMs\":"
					+ (LiveBursts.MAX_PAUSE_MS + 1) + "}").statusCode()).isEqualTo(400);
			assertThat(post("/live/api/bursts", "{\"tenant\":\"no-such-tenant\"}").statusCode()).isEqualTo(404);
			assertThat(ordersOn(LiveApiTest.this.directory.find("tenant-05").orElseThrow().shardId(), "tenant-05"))
				.isZero();
		}

	}

	private static JsonNode move(JsonNode state, String tenant) {
		return state.path("moves").valueStream().filter(m -> tenant.equals(m.path("tenant").asString(null)))
			.findFirst().orElse(MissingNode.getInstance());
	}

	private static JsonNode burst(JsonNode state, int id) {
		return state.path("bursts").valueStream().filter(b -> b.path("id").asInt() == id).findFirst()
			.orElse(MissingNode.getInstance());
	}

	private JsonNode awaitState(Predicate<JsonNode> condition) {
		return await("the live state reaches the expected condition").atMost(Duration.ofSeconds(60))
			.until(this::state, condition);
	}

	private JsonNode state() throws IOException, InterruptedException {
		HttpResponse<String> response = this.http.send(HttpRequest.newBuilder(uri("/live/api/state")).build(),
				HttpResponse.BodyHandlers.ofString());
		assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
		return this.json.readTree(response.body());
	}

	private HttpResponse<String> post(String path, String body) throws IOException, InterruptedException {
		return this.http.send(HttpRequest.newBuilder(uri(path)).header("Content-Type", "application/json")
			.POST(HttpRequest.BodyPublishers.ofString(body)).build(), HttpResponse.BodyHandlers.ofString());
	}

	private URI uri(String path) {
		return URI.create("http://localhost:" + this.port + path);
	}

	private String otherShard(String shard) {
		return this.topology.shardIds().stream().filter(s -> !s.equals(shard)).findFirst().orElseThrow();
	}

	private long customersOn(String shard, String tenant) {
		return count(shard, "SELECT COUNT(*) FROM customers WHERE tenant_id = ?", tenant);
	}

	private long ordersOn(String shard, String tenant) {
		return count(shard, "SELECT COUNT(*) FROM orders WHERE tenant_id = ?", tenant);
	}

	private long count(String shard, String sql, String tenant) {
		try (Connection c = this.topology.dataSource(shard).getConnection();
				PreparedStatement ps = c.prepareStatement(sql)) {
			ps.setString(1, tenant);
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
