package io.github.shardtenancy.boot;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import io.github.shardtenancy.DirectoryEntry;
import io.github.shardtenancy.MoveSettings;
import io.github.shardtenancy.PlacementRequest;
import io.github.shardtenancy.TenantAdmin;
import io.github.shardtenancy.TenantContext;
import io.github.shardtenancy.TenantMover;
import io.github.shardtenancy.boot.readme.PurchaseOrder;
import io.github.shardtenancy.boot.readme.PurchaseOrderRepository;
import io.github.shardtenancy.boot.readme.QuickStartApplication;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.env.YamlPropertySourceLoader;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.core.env.PropertySource;
import org.springframework.core.io.ByteArrayResource;
import org.springframework.core.io.ClassPathResource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * README's quick start as written: the test starts an application with the configuration README shows (its YAML,
 * read from README itself), the entity and the shard changelog README shows (checked to be the ones on the class
 * path), on embedded H2, and runs the steps README shows.
 */
@DisplayName("README's quick start")
class ReadmeQuickStartTests {

	private static final Path README = Path.of("..", "README.md");

	private static final Path ENTITY = Path
		.of("src/test/java/io/github/shardtenancy/boot/readme/PurchaseOrder.java");

	/** The body of README's first fenced block in {@code language} that contains {@code marker}. */
	private static String block(String language, String marker) throws IOException {
		List<String> lines = Files.readAllLines(README, StandardCharsets.UTF_8);
		List<String> body = null;
		for (String line : lines) {
			if (body == null) {
				if (line.equals("```" + language)) {
					body = new ArrayList<>();
				}
			}
			else if (line.equals("```")) {
				String text = String.join("\n", body) + "\n";
				if (text.contains(marker)) {
					return text;
				}
				body = null;
			}
			else {
				body.add(line);
			}
		}
		throw new AssertionError("README has no ```" + language + " block containing " + marker);
	}

	@Test
	@DisplayName("the shard changelog and the entity README shows are the ones this test starts")
	void snippetsAreTheStartedOnes() throws IOException {
		String changelog = new ClassPathResource("db/app/shard-changelog.xml").getContentAsString(StandardCharsets.UTF_8);
		assertThat(changelog).isEqualTo("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n" + block("xml", "<databaseChangeLog"));
		String entity = Files.readString(ENTITY, StandardCharsets.UTF_8);
		List<String> shown = block("java", "class PurchaseOrder").lines()
			.filter((line) -> !line.isBlank() && !line.strip().equals("..."))
			.toList();
		assertThat(shown).hasSizeGreaterThan(5);
		assertThat(entity.lines().toList()).containsSubsequence(shown);
	}

	@Test
	@DisplayName("README's configuration starts on H2: the initial tenants are placed and each reads only its own "
			+ "orders; step 5 creates two tenants and moves one online")
	void startsAsWritten() throws Exception {
		String yaml = block("yaml", "shard-tenancy:");
		List<PropertySource<?>> readme = new YamlPropertySourceLoader().load("README.md",
				new ByteArrayResource(yaml.getBytes(StandardCharsets.UTF_8)));
		String steps = block("java", "admin.create(");
		assertThat(steps).contains("admin.create(\"initech\");",
				"admin.create(\"umbrella\", PlacementRequest.onShard(\"shard-2\"));",
				"mover.moveAndWait(\"umbrella\", \"shard-1\", moveSettings);");
		try (ConfigurableApplicationContext context = new SpringApplicationBuilder(QuickStartApplication.class)
			.properties("spring.main.web-application-type=none")
			.initializers((application) -> readme
				.forEach((source) -> application.getEnvironment().getPropertySources().addFirst(source)))
			.run()) {
			TenantAdmin admin = context.getBean(TenantAdmin.class);
			assertThat(admin.find("acme")).isPresent();
			assertThat(admin.find("globex")).isPresent();
			PurchaseOrderRepository orders = context.getBean(PurchaseOrderRepository.class);
			TenantContext.callAs("acme", () -> orders.saveAll(List.of(new PurchaseOrder(), new PurchaseOrder())));
			TenantContext.callAs("globex", () -> orders.save(new PurchaseOrder()));
			List<PurchaseOrder> acme = TenantContext.callAs("acme", () -> orders.findAll());
			assertThat(acme).hasSize(2)
				.allSatisfy((order) -> assertThat(order.getTenantId()).isEqualTo("acme"));
			long globex = TenantContext.callAs("globex", () -> orders.count());
			assertThat(globex).isEqualTo(1);

			TenantMover mover = context.getBean(TenantMover.class);
			MoveSettings moveSettings = context.getBean(MoveSettings.class);
			admin.create("initech");
			admin.create("umbrella", PlacementRequest.onShard("shard-2"));
			TenantContext.callAs("umbrella", () -> orders.save(new PurchaseOrder()));
			mover.moveAndWait("umbrella", "shard-1", moveSettings);
			assertThat(admin.find("umbrella")).map(DirectoryEntry::shardId).contains("shard-1");
			long umbrella = TenantContext.callAs("umbrella", () -> orders.count());
			assertThat(umbrella).isEqualTo(1);
		}
	}

}
