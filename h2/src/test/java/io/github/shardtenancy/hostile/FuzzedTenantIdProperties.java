package io.github.shardtenancy.hostile;

import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;

import io.github.shardtenancy.InvalidTenantIdException;
import io.github.shardtenancy.ShardTenancyException;
import io.github.shardtenancy.TenantContext;
import io.github.shardtenancy.TenantIds;
import io.github.shardtenancy.DirectoryEntry;
import io.github.shardtenancy.testing.Note;
import io.github.shardtenancy.testing.ShardTenancyFixture;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Label;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.lifecycle.AfterContainer;
import net.jqwik.api.lifecycle.BeforeContainer;
import org.hibernate.Session;
import org.hibernate.SessionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

/**
 * Tenant ids of every shape, against a real H2 directory and two H2 shards: each is either refused with
 * {@link InvalidTenantIdException} before any database is touched, or routed to the shard it was created on, and no
 * id ever becomes part of an SQL text (every statement the library sends, recorded at the JDBC layer, is one it also
 * sends for a plain reference tenant).
 */
@Label("Fuzzed tenant ids")
class FuzzedTenantIdProperties {

	static HostileH2Cluster cluster;

	/** Every SQL text the library sends for a plain reference tenant doing the same work. */
	static Set<String> referenceStatements;

	static final AtomicInteger created = new AtomicInteger();

	@BeforeContainer
	static void start() {
		cluster = new HostileH2Cluster();
		cluster.clearRecorders();
		// Twice: the first time creates and misses the cache, the second finds the tenant existing and cached.
		exercise("reference-tenant");
		exercise("reference-tenant");
		referenceStatements = new HashSet<>(cluster.recordedStatements());
	}

	@AfterContainer
	static void stop() {
		cluster.close();
	}

	@Property(tries = 300)
	@Label("an id of any shape is refused with InvalidTenantIdException before any database is touched, or routed to its shard; it is never written into SQL")
	void anyTenantIdIsRefusedOrRoutedAndNeverReachesSqlUnbound(@ForAll("tenantIds") String tenantId) {
		cluster.clearRecorders();

		if (!TenantIds.isValid(tenantId)) {
			for (Runnable entryPoint : entryPoints(tenantId)) {
				Throwable refused = catchThrowable(entryPoint::run);
				assertThat(typed(refused)).isInstanceOf(InvalidTenantIdException.class);
				assertThat(typed(refused).getMessage()).as("no raw control character in the message")
					.doesNotContainPattern("[\\x00-\\x1f\\x7f]");
			}
			assertThat(cluster.recordedBorrows()).as("connections borrowed for an invalid id").isZero();
			assertThat(cluster.recordedStatements()).isEmpty();
			return;
		}
		String shard = exercise(tenantId);
		assertThat(cluster.router.route(tenantId).shardId()).isEqualTo(shard);
		String other = shard.equals("shard-1") ? "shard-2" : "shard-1";
		assertThat(rows(shard, tenantId)).isPositive();
		assertThat(rows(other, tenantId)).isZero();
		assertThat(cluster.recordedStatements()).as("SQL texts sent for %s", tenantId)
			.allSatisfy(sql -> assertThat(referenceStatements).contains(sql));
	}

	@Example
	@Label("the tenant-id rule's edges: 64 characters routed, 65 refused, every allowed punctuation routed")
	void edgesOfTheRule() {
		anyTenantIdIsRefusedOrRoutedAndNeverReachesSqlUnbound("a".repeat(64));
		anyTenantIdIsRefusedOrRoutedAndNeverReachesSqlUnbound("a".repeat(65));
		anyTenantIdIsRefusedOrRoutedAndNeverReachesSqlUnbound("x.y_z:w-0");
		anyTenantIdIsRefusedOrRoutedAndNeverReachesSqlUnbound("");
		anyTenantIdIsRefusedOrRoutedAndNeverReachesSqlUnbound("acme'; DROP TABLE shard_directory_entry; --");
	}

	/**
	 * The library's entry points for a tenant id: binding, routing, the directory, the admin, the connection
	 * provider and a Hibernate session.
	 */
	static List<Runnable> entryPoints(String tenantId) {
		SessionFactory sessions = cluster.sessions;
		return List.of(() -> TenantContext.bind(tenantId).close(), () -> cluster.router.route(tenantId),
				() -> cluster.directory.find(tenantId), () -> cluster.admin.create(tenantId, "shard-1"),
				() -> cluster.directory.history(tenantId), () -> {
					try {
						cluster.provider.getConnection(tenantId).close();
					}
					catch (java.sql.SQLException ex) {
						throw new IllegalStateException(ex);
					}
				}, () -> {
					try (Session session = sessions.withOptions().tenantIdentifier((Object) tenantId).openSession()) {
						session.inTransaction(tx -> session.persist(new Note("never")));
					}
				});
	}

	/**
	 * Creates the tenant if new (on a shard chosen by its hash), routes it and writes one note as it through
	 * Hibernate.
	 * @return the tenant's shard
	 */
	static String exercise(String tenantId) {
		DirectoryEntry entry = cluster.directory.find(tenantId)
			.orElseGet(() -> cluster.admin.create(tenantId, HostileH2Cluster.SHARDS.get(created.getAndIncrement() % 2)));
		assertThat(cluster.router.route(tenantId).shardId()).isEqualTo(entry.shardId());
		try (TenantContext.Scope scope = TenantContext.bind(tenantId)) {
			cluster.sessions.inTransaction(session -> session.persist(new Note("fuzzed")));
			long seen = cluster.sessions.fromTransaction(
					session -> session.createSelectionQuery("select count(n) from Note n", Long.class)
						.getSingleResult());
			assertThat(seen).isPositive();
		}
		return entry.shardId();
	}

	static long rows(String shardId, String tenantId) {
		return ShardTenancyFixture.queryLong(cluster.shardPools.get(shardId),
				"SELECT COUNT(*) FROM note WHERE tenant_id = ?", tenantId);
	}

	/** @return the library's exception in the cause chain (Hibernate may wrap it), or the failure itself */
	static Throwable typed(Throwable failure) {
		for (Throwable t = failure; t != null; t = t.getCause()) {
			if (t instanceof ShardTenancyException) {
				return t;
			}
		}
		return failure;
	}

	@Provide
	Arbitrary<String> tenantIds() {
		String allowed = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._:-";
		Arbitrary<String> valid = Arbitraries.strings().withChars(allowed.toCharArray()).ofMinLength(1).ofMaxLength(64);
		Arbitrary<String> anything = Arbitraries.strings().all().ofMinLength(0).ofMaxLength(80);
		Arbitrary<String> veryLong = Arbitraries.strings().withChars(allowed.toCharArray()).ofMinLength(65)
			.ofMaxLength(5000);
		Arbitrary<String> unicode = Arbitraries.strings()
			.withCharRange('\u00c0', '\u024f')
			.withCharRange('\u0400', '\u04ff')
			.withCharRange('\u4e00', '\u4e80')
			.withChars("\u200b\u202e\ufeff\ud83d\ude00")
			.ofMinLength(1)
			.ofMaxLength(20);
		Arbitrary<String> control = Arbitraries.strings().withCharRange('\u0000', '\u001f').withChars('\u007f')
			.ofMinLength(1).ofMaxLength(5);
		Arbitrary<String> sql = Arbitraries.of("'", "''", "\"", "\\", "acme' OR '1'='1", "x'); DELETE FROM note; --",
				"a;DROP TABLE shard_directory_entry", "%", "_", "a%", "$1", "?", "@SHARD_TENANT", "a b", " a", "a ",
				"null", "NULL", "--", "/*", "*/");
		// A valid id with one hostile piece spliced in somewhere.
		Arbitrary<String> spliced = valid.flatMap(v -> Arbitraries.oneOf(sql, control, unicode)
			.flatMap(bad -> Arbitraries.integers().between(0, v.length())
				.map(at -> v.substring(0, at) + bad + v.substring(at))));
		return Arbitraries.frequencyOf(net.jqwik.api.Tuple.of(4, valid), net.jqwik.api.Tuple.of(3, anything),
				net.jqwik.api.Tuple.of(1, veryLong), net.jqwik.api.Tuple.of(2, unicode),
				net.jqwik.api.Tuple.of(1, control), net.jqwik.api.Tuple.of(2, sql), net.jqwik.api.Tuple.of(3, spliced),
				net.jqwik.api.Tuple.of(1, Arbitraries.just("")));
	}

}
