package io.github.shardtenancy.sample;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import io.github.shardtenancy.TenantAdmin;
import io.github.shardtenancy.DirectoryEntry;
import io.github.shardtenancy.ShardTopology;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The REST API over real HTTP, on a real server and three real H2 shards.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT, properties = {
		"shard-tenancy.directory.url=jdbc:h2:mem:api-test-directory;DB_CLOSE_DELAY=-1",
		"shard-tenancy.shards.shard-1.url=jdbc:h2:mem:api-test-shard-1;DB_CLOSE_DELAY=-1;LOCK_TIMEOUT=10000",
		"shard-tenancy.shards.shard-2.url=jdbc:h2:mem:api-test-shard-2;DB_CLOSE_DELAY=-1;LOCK_TIMEOUT=10000",
		"shard-tenancy.shards.shard-3.url=jdbc:h2:mem:api-test-shard-3;DB_CLOSE_DELAY=-1;LOCK_TIMEOUT=10000" })
class OrdersApiTest {

	@LocalServerPort
	int port;

	@Autowired
	JsonMapper json;

	@Autowired
	TenantAdmin directory;

	@Autowired
	ShardTopology topology;

	private final HttpClient http = HttpClient.newHttpClient();

	@Nested
	@DisplayName("placing and listing orders")
	class PlacingAndListing {

		@Test
		@DisplayName("an order posted for a tenant is answered 201 and listed for that tenant only")
		void postedOrderIsListedForItsTenantOnly() throws Exception {
			HttpResponse<String> created = post("tenant-01", "{\"product\":\"widget\",\"quantity\":2}");
			assertThat(created.statusCode()).isEqualTo(201);
			JsonNode order = OrdersApiTest.this.json.readTree(created.body());
			String id = order.get("id").asString();
			assertThat(order.get("tenantId").asString()).isEqualTo("tenant-01");
			assertThat(order.get("customer").asString()).isEqualTo("Customer of tenant-01");
			assertThat(order.get("lines").get(0).get("product").asString()).isEqualTo("widget");
			assertThat(order.get("lines").get(0).get("quantity").asInt()).isEqualTo(2);

			assertThat(orderIds(get("tenant-01"))).contains(id);
			assertThat(orderIds(get("tenant-02"))).doesNotContain(id);
		}

		@Test
		@DisplayName("an order naming a new customer creates that customer for the tenant")
		void namedCustomerIsCreated() throws Exception {
			HttpResponse<String> created = post("tenant-03",
					"{\"customer\":\"Alice\",\"product\":\"gadget\",\"quantity\":1}");
			assertThat(created.statusCode()).isEqualTo(201);
			assertThat(OrdersApiTest.this.json.readTree(created.body()).get("customer").asString()).isEqualTo("Alice");
		}

		@Test
		@DisplayName("an order with a quantity below 1 is answered 400")
		void quantityBelowOneIs400() throws Exception {
			HttpResponse<String> response = post("tenant-01", "{\"product\":\"widget\",\"quantity\":0}");
			assertThat(response.statusCode()).isEqualTo(400);
			assertThat(response.body()).contains("quantity must be at least 1");
		}

	}

	@Nested
	@DisplayName("tenant errors")
	class TenantErrors {

		@Test
		@DisplayName("an unknown tenant is answered 404 naming the tenant")
		void unknownTenantIs404() throws Exception {
			HttpResponse<String> response = get("no-such-tenant");
			assertThat(response.statusCode()).isEqualTo(404);
			assertThat(OrdersApiTest.this.json.readTree(response.body()).get("tenant").asString())
				.isEqualTo("no-such-tenant");
		}

		@Test
		@DisplayName("an invalid tenant id is answered 400 and nothing is routed")
		void invalidTenantIdIs400() throws Exception {
			HttpResponse<String> response = send(HttpRequest.newBuilder(uri())
				.header("X-Tenant-Id", "bad id!")
				.POST(HttpRequest.BodyPublishers.ofString("{\"product\":\"widget\",\"quantity\":1}"))
				.header("Content-Type", "application/json"));
			assertThat(response.statusCode()).isEqualTo(400);
			assertThat(response.body()).contains("Invalid tenant id");
		}

		@Test
		@DisplayName("a request without a tenant is answered 400 naming the header")
		void missingTenantIs400() throws Exception {
			HttpResponse<String> response = send(HttpRequest.newBuilder(uri()).GET());
			assertThat(response.statusCode()).isEqualTo(400);
			assertThat(response.body()).contains("X-Tenant-Id");
		}

	}

	@Test
	@DisplayName("the seed spreads 20 tenants round robin over the shards, each with its customer on its shard")
	void seedSpreadsTenantsRoundRobinWithACustomerEach() throws SQLException {
		Map<String, String> shardOf = new TreeMap<>();
		this.directory.snapshot(entry -> shardOf.put(entry.tenantId(), entry.shardId()));
		assertThat(shardOf).hasSize(20);
		assertThat(shardOf).containsEntry("tenant-01", "shard-1")
			.containsEntry("tenant-02", "shard-2")
			.containsEntry("tenant-03", "shard-3")
			.containsEntry("tenant-04", "shard-1")
			.containsEntry("tenant-20", "shard-2");
		for (Map.Entry<String, String> tenant : shardOf.entrySet()) {
			assertThat(customersOn(tenant.getValue(), tenant.getKey())).as(tenant.getKey()).contains(
					"Customer of " + tenant.getKey());
		}
		DirectoryEntry first = this.directory.find("tenant-01").orElseThrow();
		assertThat(first.state().name()).isEqualTo("ACTIVE");
	}

	private List<String> customersOn(String shard, String tenant) throws SQLException {
		try (Connection c = this.topology.dataSource(shard).getConnection();
				PreparedStatement ps = c.prepareStatement("SELECT name FROM customers WHERE tenant_id = ?")) {
			ps.setString(1, tenant);
			List<String> names = new ArrayList<>();
			try (ResultSet rs = ps.executeQuery()) {
				while (rs.next()) {
					names.add(rs.getString(1));
				}
			}
			return names;
		}
	}

	private List<String> orderIds(HttpResponse<String> response) {
		assertThat(response.statusCode()).isEqualTo(200);
		List<String> ids = new ArrayList<>();
		this.json.readTree(response.body()).forEach(order -> ids.add(order.get("id").asString()));
		return ids;
	}

	private URI uri() {
		return URI.create("http://localhost:" + this.port + "/orders");
	}

	private HttpResponse<String> post(String tenant, String body) throws IOException, InterruptedException {
		return send(HttpRequest.newBuilder(uri())
			.header("X-Tenant-Id", tenant)
			.header("Content-Type", "application/json")
			.POST(HttpRequest.BodyPublishers.ofString(body)));
	}

	private HttpResponse<String> get(String tenant) throws IOException, InterruptedException {
		return send(HttpRequest.newBuilder(uri()).header("X-Tenant-Id", tenant).GET());
	}

	private HttpResponse<String> send(HttpRequest.Builder request) throws IOException, InterruptedException {
		return this.http.send(request.build(), HttpResponse.BodyHandlers.ofString());
	}

}
