package io.github.shardtenancy.boot.actuate;

import io.github.shardtenancy.DirectoryEntry;
import io.github.shardtenancy.TenantAdmin;
import io.github.shardtenancy.TenantMover;
import io.github.shardtenancy.boot.opsapp.OpsApplication;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.http.MediaType;
import org.springframework.test.web.servlet.MockMvc;
import org.springframework.test.web.servlet.setup.MockMvcBuilders;
import org.springframework.web.context.WebApplicationContext;

import static org.assertj.core.api.Assertions.assertThat;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.delete;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.get;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.post;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.jsonPath;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.status;

/**
 * The {@code shardtenancy} endpoint exposed over HTTP without any access property: its default access is read-only,
 * so the reads answer and the move does not exist (Spring MVC answers 405, as for any operation Actuator's access
 * model leaves out), and the tenant stays where it is.
 */
@SpringBootTest(classes = OpsApplication.class, properties = {
		"shard-tenancy.web.access.policy=none",
		"shard-tenancy.directory.url=jdbc:h2:mem:ro-directory;DB_CLOSE_DELAY=-1;LOCK_TIMEOUT=10000",
		"shard-tenancy.shards.shard-1.url=jdbc:h2:mem:ro-shard-1;DB_CLOSE_DELAY=-1;LOCK_TIMEOUT=10000",
		"shard-tenancy.shards.shard-2.url=jdbc:h2:mem:ro-shard-2;DB_CLOSE_DELAY=-1;LOCK_TIMEOUT=10000",
		"shard-tenancy.liquibase.shard-changelogs=db/ops-shard.xml", "shard-tenancy.sync.interval=1h",
		"shard-tenancy.actor=read-only-endpoint-tests", "management.endpoints.web.exposure.include=shardtenancy",
		"management.endpoint.shardtenancy.show-values=always" })
class ShardTenancyEndpointReadOnlyTests {

	@Autowired
	private TenantAdmin admin;

	@Autowired
	private TenantMover mover;

	@Autowired
	private WebApplicationContext context;

	@Test
	@DisplayName("without management.endpoint.shardtenancy.access=unrestricted the move, the create and the delete are refused with 405 and nothing changes; the reads answer")
	void moveIsNotAvailable() throws Exception {
		MockMvc mvc = MockMvcBuilders.webAppContextSetup(this.context).build();
		DirectoryEntry before = this.admin.create("ro-1", "shard-1");

		mvc.perform(post("/actuator/shardtenancy/ro-1").contentType(MediaType.APPLICATION_JSON)
			.content("{\"targetShard\": \"shard-2\"}")).andExpect(status().isMethodNotAllowed());

		mvc.perform(post("/actuator/shardtenancy/ro-2/create").contentType(MediaType.APPLICATION_JSON).content("{}"))
			.andExpect(status().isMethodNotAllowed());
		mvc.perform(delete("/actuator/shardtenancy/ro-1")).andExpect(status().isMethodNotAllowed());

		assertThat(this.admin.find("ro-1")).contains(before);
		assertThat(this.admin.find("ro-2")).as("not created").isEmpty();
		assertThat(this.mover.findActive("ro-1")).isEmpty();
		mvc.perform(get("/actuator/shardtenancy/ro-1"))
			.andExpect(status().isOk())
			.andExpect(jsonPath("$.owner").value("shard-1"));
		mvc.perform(get("/actuator/shardtenancy")).andExpect(status().isOk()).andExpect(jsonPath("$.ready").value(true));
	}

}
