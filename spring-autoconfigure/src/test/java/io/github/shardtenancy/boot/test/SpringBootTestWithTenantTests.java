package io.github.shardtenancy.boot.test;

import io.github.shardtenancy.NoTenantBoundException;
import io.github.shardtenancy.TenantAdmin;
import io.github.shardtenancy.TenantContext;
import io.github.shardtenancy.boot.testapp.Note;
import io.github.shardtenancy.boot.testapp.NoteRepository;
import io.github.shardtenancy.boot.testapp.TestApplication;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * {@code @SpringBootTest} (no test-managed transaction) with {@link WithTenant}: each repository call commits on
 * the tenant's shard; a test without the annotation has no tenant.
 */
@SpringBootTest(classes = TestApplication.class, properties = {
		"shard-tenancy.web.access.policy=none",
		"shard-tenancy.directory.url=jdbc:h2:mem:boottest-directory;DB_CLOSE_DELAY=-1;LOCK_TIMEOUT=10000",
		"shard-tenancy.shards.shard-1.url=jdbc:h2:mem:boottest-shard-1;DB_CLOSE_DELAY=-1;LOCK_TIMEOUT=10000",
		"shard-tenancy.shards.shard-2.url=jdbc:h2:mem:boottest-shard-2;DB_CLOSE_DELAY=-1;LOCK_TIMEOUT=10000",
		"shard-tenancy.liquibase.shard-changelogs=db/test-shard.xml", "shard-tenancy.sync.interval=1h" })
class SpringBootTestWithTenantTests {

	@Autowired
	private NoteRepository notes;

	@Autowired
	private TenantAdmin admin;

	@Test
	@WithTenant(value = "umbrella", create = true)
	@DisplayName("a method-level tenant, created by the annotation, saves and reads a committed note")
	void methodLevelTenantCommits() {
		this.notes.save(new Note("umbrella note"));

		assertThat(this.notes.findAll()).extracting(Note::getTitle).contains("umbrella note");
		assertThat(this.admin.find("umbrella")).isPresent();
	}

	@Test
	@DisplayName("without the annotation no tenant is bound, and creating one is one line")
	void noAnnotationNoTenant() {
		assertThat(TenantContext.current()).isNull();
		assertThatThrownBy(() -> this.notes.findAll()).isInstanceOf(NoTenantBoundException.class);

		this.admin.create("hooli");
		TenantContext.runAs("hooli", () -> assertThat(this.notes.findAll()).isEmpty());
	}

}
