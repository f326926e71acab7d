package io.github.shardtenancy.boot;

import io.github.shardtenancy.ShardTopology;
import io.github.shardtenancy.TenantContext;
import io.github.shardtenancy.TenantAdmin;
import io.github.shardtenancy.boot.retry.ShardTenancyRetryAdvisor;
import io.github.shardtenancy.boot.testapp.Note;
import io.github.shardtenancy.boot.testapp.NoteRepository;
import io.github.shardtenancy.boot.testapp.NoteService;
import io.github.shardtenancy.boot.testapp.RecordingRetryListener;
import io.github.shardtenancy.boot.testapp.TestApplication;
import io.github.shardtenancy.DirectoryEntry;
import io.github.shardtenancy.internal.fence.FenceState;
import io.github.shardtenancy.internal.fence.ShardFence;
import io.github.shardtenancy.retry.FenceRejection;
import jakarta.persistence.PessimisticLockException;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.ApplicationContext;
import org.springframework.dao.CannotAcquireLockException;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** With {@code shard-tenancy.retry.enabled=false}, a rejection reaches the caller after exactly one attempt. */
@SpringBootTest(classes = TestApplication.class, properties = {
		"shard-tenancy.web.access.policy=none",
		"shard-tenancy.directory.url=jdbc:h2:mem:noretry-directory;DB_CLOSE_DELAY=-1;LOCK_TIMEOUT=10000",
		"shard-tenancy.shards.shard-1.url=jdbc:h2:mem:noretry-shard-1;DB_CLOSE_DELAY=-1;LOCK_TIMEOUT=10000",
		"shard-tenancy.liquibase.shard-changelogs=db/test-shard.xml", "shard-tenancy.sync.interval=1h",
		"shard-tenancy.retry.enabled=false", "shard-tenancy.actor=tests" })
class RetryDisabledTests {

	@Autowired
	private ApplicationContext context;

	@Autowired
	private TenantAdmin admin;

	@Autowired
	private ShardTopology topology;

	@Autowired
	private NoteRepository notes;

	@Autowired
	private NoteService noteService;

	@Autowired
	private RecordingRetryListener listener;

	private void frozen(String tenant, Runnable work) {
		DirectoryEntry entry = this.admin.create(tenant, "shard-1");
		ShardFence.set(this.topology.dataSource("shard-1"), "shard-1", tenant, FenceState.FROZEN,
				entry.version());
		this.listener.reset();
		this.noteService.reset();
		TenantContext.runAs(tenant, work);
	}

	@Test
	@DisplayName("no retry advisor is registered")
	void noAdvisor() {
		assertThat(this.context.getBeansOfType(ShardTenancyRetryAdvisor.class)).isEmpty();
	}

	@Test
	@DisplayName("a repository write of a frozen tenant fails at once with the fence rejection")
	void repositoryWriteIsNotRetried() {
		frozen("no-retry-repository", () -> assertThatThrownBy(() -> this.notes.saveAndFlush(new Note("once")))
			.isInstanceOf(CannotAcquireLockException.class)
			.satisfies((ex) -> assertThat(FenceRejection.find(ex)).get()
				.extracting(FenceRejection::reason)
				.isEqualTo("FROZEN")));
		assertThat(this.listener.failures()).isEmpty();
	}

	@Test
	@DisplayName("a transactional service body runs exactly once")
	void serviceIsNotRetried() {
		frozen("no-retry-service", () -> assertThatThrownBy(() -> this.noteService.persistAndFlush("once"))
			.isInstanceOf(PessimisticLockException.class));
		assertThat(this.noteService.runs()).isEqualTo(1);
	}

}
