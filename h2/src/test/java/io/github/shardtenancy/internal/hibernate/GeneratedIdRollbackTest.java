package io.github.shardtenancy.internal.hibernate;

import io.github.shardtenancy.DirectoryEntry;
import io.github.shardtenancy.internal.fence.FenceState;
import io.github.shardtenancy.internal.fence.ShardFence;
import io.github.shardtenancy.retry.FenceRejection;
import io.github.shardtenancy.testing.Note;
import io.github.shardtenancy.testing.ShardTenancyFixture;
import org.hibernate.SessionFactory;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import static io.github.shardtenancy.testing.Transactions.inTransaction;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

@DisplayName("Generated identifiers after a rolled-back transaction")
class GeneratedIdRollbackTest {

	private static ShardTenancyFixture fixture;

	private static SessionFactory sessionFactory;

	@BeforeAll
	static void setUp() {
		fixture = ShardTenancyFixture.create("generated-id", 1);
		sessionFactory = fixture.sessionFactory();
	}

	@AfterAll
	static void tearDown() {
		fixture.close();
	}

	@Test
	@DisplayName("an entity persisted in a transaction the fence rejected loses its generated id and is persisted again cleanly")
	void entityOfRejectedTransactionCanBePersistedAgain() {
		DirectoryEntry entry = fixture.admin(fixture.router()).create("gen-t1", "shard-1");
		ShardFence.set(fixture.pool("shard-1"), "shard-1", "gen-t1", FenceState.FROZEN, entry.version());
		Note note = new Note("built once");

		assertThatThrownBy(() -> inTransaction(sessionFactory, "gen-t1", session -> {
			session.persist(note);
			assertThat(note.getId()).isNotNull();
			return null;
		})).satisfies(ex -> assertThat(FenceRejection.find(ex).orElseThrow().reason()).isEqualTo("FROZEN"));
		assertThat(note.getId()).as("reset by the rollback").isNull();

		ShardFence.set(fixture.pool("shard-1"), "shard-1", "gen-t1", FenceState.OWNED, entry.version());
		inTransaction(sessionFactory, "gen-t1", session -> {
			session.persist(note);
			return null;
		});

		assertThat(note.getId()).isNotNull();
		assertThat(fixture.rows("shard-1", "note", "gen-t1")).isEqualTo(1);
	}

	@Test
	@DisplayName("a committed entity keeps its generated id")
	void committedEntityKeepsItsId() {
		fixture.admin(fixture.router()).create("gen-t2", "shard-1");
		Note note = new Note("committed");

		inTransaction(sessionFactory, "gen-t2", session -> {
			session.persist(note);
			return null;
		});

		assertThat(note.getId()).isNotNull();
		Note found = inTransaction(sessionFactory, "gen-t2", session -> session.find(Note.class, note.getId()));
		assertThat(found.getBody()).isEqualTo("committed");
	}

}
