package io.github.shardtenancy.boot;

import java.util.List;

import io.github.shardtenancy.NoTenantBoundException;
import io.github.shardtenancy.ReferenceStatement;
import io.github.shardtenancy.ReferenceTables;
import io.github.shardtenancy.ShardTopology;
import io.github.shardtenancy.TenantAdmin;
import io.github.shardtenancy.TenantContext;
import io.github.shardtenancy.testing.reference.Pet;
import io.github.shardtenancy.boot.refapp.PetRepository;
import io.github.shardtenancy.boot.refapp.PetTypeRepository;
import io.github.shardtenancy.boot.refapp.ReferenceApplication;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.transaction.support.TransactionTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

/**
 * Reference tables in a Boot application on two H2 shards: the {@code @ReferenceData} entity is discovered, written
 * once through the {@link ReferenceTables} bean onto both shards, read through its Spring Data repository and
 * {@code JdbcTemplate} with no tenant bound, and referenced by foreign key from a tenant entity; the tenant entity's
 * repository still refuses to run with no tenant.
 */
@SpringBootTest(classes = ReferenceApplication.class, properties = {
		"shard-tenancy.web.access.policy=none",
		"shard-tenancy.directory.url=jdbc:h2:mem:reftables-directory;DB_CLOSE_DELAY=-1;LOCK_TIMEOUT=10000",
		"shard-tenancy.shards.shard-1.url=jdbc:h2:mem:reftables-shard-1;DB_CLOSE_DELAY=-1;LOCK_TIMEOUT=10000",
		"shard-tenancy.shards.shard-2.url=jdbc:h2:mem:reftables-shard-2;DB_CLOSE_DELAY=-1;LOCK_TIMEOUT=10000",
		"shard-tenancy.liquibase.shard-changelogs=db/testing/pets.xml", "shard-tenancy.sync.interval=1h",
		"shard-tenancy.actor=reference-tests" })
class ReferenceTablesTests {

	@Autowired
	private ReferenceTables referenceTables;

	@Autowired
	private PetTypeRepository types;

	@Autowired
	private PetRepository pets;

	@Autowired
	private JdbcTemplate jdbc;

	@Autowired
	private TransactionTemplate transactions;

	@Autowired
	private TenantAdmin admin;

	@Autowired
	private ShardTopology topology;

	@Test
	@DisplayName("one write reaches both shards; repositories and JdbcTemplate read it with no tenant; tenant data stays refused")
	void referenceDataWithoutTenant() throws Exception {
		assertThat(this.referenceTables.tables()).containsExactly("pet_type");
		this.referenceTables.write(List.of(ReferenceStatement.of("INSERT INTO pet_type (id, name) VALUES (?, ?)", 1,
				"cat"), ReferenceStatement.of("INSERT INTO pet_type (id, name) VALUES (?, ?)", 2, "dog")));
		for (String shardId : this.topology.shardIds()) {
			assertThat(new JdbcTemplate(this.topology.dataSource(shardId))
				.queryForList("select name from pet_type order by id", String.class)).as(shardId)
				.containsExactly("cat", "dog");
		}

		assertThat(TenantContext.current()).isNull();
		assertThat(this.types.findAll()).extracting("name").containsExactlyInAnyOrder("cat", "dog");
		assertThat(this.types.findById(2)).get().extracting("name").isEqualTo("dog");
		assertThat(this.jdbc.queryForObject("select count(*) from pet_type", Integer.class)).isEqualTo(2);

		this.admin.create("acme");
		TenantContext.runAs("acme", () -> this.transactions.executeWithoutResult(
				(status) -> this.pets.save(new Pet("Tom", this.types.findById(1).orElseThrow()))));
		List<String> joined = TenantContext.callAs("acme", () -> this.pets.namesWithTypes());
		assertThat(joined).containsExactly("Tom:cat");

		assertThat(rootCause(catchThrowable(() -> this.pets.findAll()))).isInstanceOf(NoTenantBoundException.class);
		assertThat(rootCause(catchThrowable(() -> this.jdbc.queryForList("select name from pet", String.class))))
			.isInstanceOf(NoTenantBoundException.class);
	}

	private static Throwable rootCause(Throwable thrown) {
		assertThat(thrown).as("thrown").isNotNull();
		while (thrown.getCause() != null) {
			thrown = thrown.getCause();
		}
		return thrown;
	}

}
