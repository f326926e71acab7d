package io.github.shardtenancy.boot.test;

import java.util.List;

import io.github.shardtenancy.ShardTopology;
import io.github.shardtenancy.TenantAdmin;
import io.github.shardtenancy.TenantContext;
import io.github.shardtenancy.boot.testapp.Note;
import io.github.shardtenancy.boot.testapp.NoteRepository;
import io.github.shardtenancy.boot.testapp.TestApplication;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.data.jpa.test.autoconfigure.DataJpaTest;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.test.context.ContextConfiguration;
import org.springframework.test.context.transaction.AfterTransaction;
import org.springframework.test.context.transaction.BeforeTransaction;
import org.springframework.test.context.transaction.TestTransaction;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code @DataJpaTest} with the starter on two H2 shards: the slice includes the auto-configuration, and
 * {@link WithTenant} binds the tenant before the test-managed transaction begins and after it has rolled back.
 */
@DataJpaTest(properties = {
		"shard-tenancy.directory.url=jdbc:h2:mem:datajpa-directory;DB_CLOSE_DELAY=-1;LOCK_TIMEOUT=10000",
		"shard-tenancy.shards.shard-1.url=jdbc:h2:mem:datajpa-shard-1;DB_CLOSE_DELAY=-1;LOCK_TIMEOUT=10000",
		"shard-tenancy.shards.shard-2.url=jdbc:h2:mem:datajpa-shard-2;DB_CLOSE_DELAY=-1;LOCK_TIMEOUT=10000",
		"shard-tenancy.liquibase.shard-changelogs=db/test-shard.xml", "shard-tenancy.sync.interval=1h" })
@ContextConfiguration(classes = TestApplication.class)
@WithTenant(value = "acme", create = true)
class DataJpaTestWithTenantTests {

	@Autowired
	private NoteRepository notes;

	@Autowired
	private JdbcTemplate jdbc;

	@Autowired
	private TenantAdmin admin;

	@Autowired
	private ShardTopology topology;

	@AfterAll
	static void noTenantIsLeftBound() {
		assertThat(TenantContext.current()).as("tenant bound after the tests").isNull();
	}

	@BeforeTransaction
	void tenantIsBoundBeforeTheTransaction() {
		assertThat(TestTransaction.isActive()).isFalse();
		assertThat(TenantContext.current()).isNotNull();
	}

	@AfterTransaction
	void savedNotesAreRolledBack() {
		assertThat(TenantContext.current()).as("still bound after the rollback").isNotNull();
		assertThat(this.notes.count()).as("notes of %s after the rollback", TenantContext.current()).isZero();
	}

	@Test
	@DisplayName("the class-level tenant is bound in the test-managed transaction, and a saved note is read back")
	void classLevelTenantSavesAndReadsThroughTheRepository() {
		assertThat(TestTransaction.isActive()).isTrue();
		assertThat(TenantContext.current()).isEqualTo("acme");
		Note saved = this.notes.saveAndFlush(new Note("first"));

		assertThat(this.notes.findById(saved.getId())).get().extracting(Note::getTenantId).isEqualTo("acme");
		assertThat(this.jdbc.queryForList("select title from note", String.class)).containsExactly("first");
	}

	@Test
	@WithTenant(value = "globex", create = true)
	@DisplayName("a method-level tenant wins over the class-level one")
	void methodLevelTenantWins() {
		assertThat(TenantContext.current()).isEqualTo("globex");
		this.notes.saveAndFlush(new Note("globex note"));

		assertThat(this.notes.findAll()).extracting(Note::getTitle).containsExactly("globex note");
		assertThat(this.admin.find("globex")).as("created by the annotation").isPresent();
		assertThat(this.topology.shardIds()).contains(this.admin.find("globex").orElseThrow().shardId());
	}

	@Nested
	@DisplayName("in a nested class")
	class NestedTests {

		@Test
		@DisplayName("the enclosing class's tenant is bound")
		void enclosingTenantIsBound() {
			assertThat(TenantContext.current()).isEqualTo("acme");
			assertThat(TestTransaction.isActive()).isTrue();
			List<Note> none = DataJpaTestWithTenantTests.this.notes.findAll();
			assertThat(none).isEmpty();
		}

	}

}
