package io.github.shardtenancy.boot;

import io.github.shardtenancy.ShardTopology;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;

import io.github.shardtenancy.TenantContext;
import io.github.shardtenancy.TenantSwitchedException;
import io.github.shardtenancy.TenantAdmin;
import io.github.shardtenancy.boot.isoapp.IsoApplication;
import io.github.shardtenancy.boot.isoapp.Memo;
import io.github.shardtenancy.boot.isoapp.MemoService;
import io.github.shardtenancy.boot.isoapp.Seen;
import io.github.shardtenancy.boot.web.TenantHeaderFilter;
import jakarta.persistence.EntityManager;
import jakarta.persistence.EntityManagerFactory;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.orm.jpa.JpaTransactionManager;
import org.springframework.test.web.servlet.MockMvc;
import org.springframework.test.web.servlet.setup.MockMvcBuilders;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.TransactionDefinition;
import org.springframework.transaction.support.TransactionTemplate;
import org.springframework.web.context.WebApplicationContext;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.get;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.jsonPath;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.status;

/**
 * Isolation levels and read-only of {@code @Transactional} and {@code TransactionTemplate} on the shard transaction,
 * and a session of another tenant refused on reads, in a real application (Boot, Hibernate, Spring Data JPA, Spring
 * MVC with open session in view on as Boot's default, two H2 shards).
 */
@SpringBootTest(classes = IsoApplication.class, properties = {
		"shard-tenancy.web.access.policy=none",
		"shard-tenancy.directory.url=jdbc:h2:mem:iso-directory;DB_CLOSE_DELAY=-1;LOCK_TIMEOUT=10000",
		"shard-tenancy.shards.shard-1.url=jdbc:h2:mem:iso-shard-1;DB_CLOSE_DELAY=-1;LOCK_TIMEOUT=10000",
		"shard-tenancy.shards.shard-2.url=jdbc:h2:mem:iso-shard-2;DB_CLOSE_DELAY=-1;LOCK_TIMEOUT=10000",
		"shard-tenancy.liquibase.shard-changelogs=db/iso-shard.xml", "shard-tenancy.sync.interval=1h",
		"shard-tenancy.retry.max-delay=20ms", "shard-tenancy.actor=iso-tests" })
class TransactionCharacteristicsTests {

	private static final AtomicInteger TENANTS = new AtomicInteger();

	@Autowired
	private TenantAdmin admin;

	@Autowired
	private ShardTopology topology;

	@Autowired
	private MemoService memos;

	@Autowired
	private PlatformTransactionManager transactionManager;

	@Autowired
	private EntityManagerFactory entityManagerFactory;

	@Autowired
	private WebApplicationContext context;

	private String tenant;

	private TenantContext.Scope scope;

	@BeforeEach
	void bindNewTenant() {
		this.tenant = "iso-" + TENANTS.incrementAndGet();
		this.admin.create(this.tenant, "shard-1");
		this.memos.reset();
		this.scope = TenantContext.bind(this.tenant);
	}

	@AfterEach
	void unbind() {
		this.scope.close();
	}

	private long memosOnShard(String tenantId, String title) throws SQLException {
		try (Connection c = this.topology.dataSource("shard-1").getConnection();
				PreparedStatement ps = c
					.prepareStatement("SELECT COUNT(*) FROM iso_memo WHERE tenant_id = ? AND title = ?")) {
			ps.setString(1, tenantId);
			ps.setString(2, title);
			try (ResultSet rs = ps.executeQuery()) {
				rs.next();
				return rs.getLong(1);
			}
		}
	}

	private static String sqlState(Throwable thrown) {
		for (Throwable t = thrown; t != null; t = t.getCause()) {
			if (t instanceof SQLException sql && sql.getSQLState() != null) {
				return sql.getSQLState();
			}
		}
		return null;
	}

	@Nested
	@DisplayName("isolation levels")
	class IsolationLevels {

		@Test
		@DisplayName("the auto-configuration installs its JPA dialect on Boot's JPA transaction manager")
		void dialectInstalled() {
			assertThat(((JpaTransactionManager) transactionManager).getJpaDialect())
				.isInstanceOf(ShardTenancyJpaDialect.class);
		}

		@Test
		@DisplayName("@Transactional(isolation = ...) runs the shard transaction at each of H2's four levels")
		void everyLevel() {
			assertThat(memos.readUncommitted().isolation()).isEqualTo("READ UNCOMMITTED");
			assertThat(memos.readCommitted().isolation()).isEqualTo("READ COMMITTED");
			assertThat(memos.repeatableRead().isolation()).isEqualTo("REPEATABLE READ");
			assertThat(memos.serializable().isolation()).isEqualTo("SERIALIZABLE");
		}

		@Test
		@DisplayName("the pool resets isolation and read-only: the next borrower of the same connection gets the defaults and may write")
		void poolResetsTheConnection() throws SQLException {
			Seen special = memos.serializableReadOnly();
			Seen next = memos.defaults();

			assertThat(special.isolation()).isEqualTo("SERIALIZABLE");
			assertThat(next.session()).isEqualTo(special.session());
			assertThat(next.isolation()).isEqualTo("READ COMMITTED");
			memos.write("after read-only");
			assertThat(memosOnShard(tenant, "after read-only")).isEqualTo(1);
		}

		@Test
		@DisplayName("a TransactionTemplate with an isolation level runs the shard transaction at that level")
		void transactionTemplate() {
			TransactionTemplate template = new TransactionTemplate(transactionManager);
			template.setIsolationLevel(TransactionDefinition.ISOLATION_REPEATABLE_READ);

			assertThat(template.execute(status -> memos.seen()).isolation()).isEqualTo("REPEATABLE READ");
		}

		@Test
		@DisplayName("a REQUIRES_NEW transaction inside a serializable read-only one runs with its own settings, and the outer keeps its own")
		void requiresNewInside() throws SQLException {
			List<Seen> seen = memos.outerAroundRequiresNew("inner write");

			assertThat(seen.get(0).isolation()).isEqualTo("SERIALIZABLE");
			assertThat(seen.get(1).isolation()).isEqualTo("READ COMMITTED");
			assertThat(seen.get(1).session()).isNotEqualTo(seen.get(0).session());
			assertThat(seen.get(2)).isEqualTo(seen.get(0));
			assertThat(memosOnShard(tenant, "inner write")).isEqualTo(1);
		}

	}

	@Nested
	@DisplayName("read-only transactions")
	class ReadOnly {

		@Test
		@DisplayName("a native insert is refused with SQLSTATE 25006, not retried, and writes nothing")
		void nativeInsert() throws SQLException {
			Throwable thrown = catchThrowable(() -> memos.nativeInsert("native"));

			assertThat(sqlState(thrown)).as("%s", thrown).isEqualTo("25006");
			assertThat(memos.runs()).isEqualTo(1);
			assertThat(memosOnShard(tenant, "native")).isZero();
		}

		@Test
		@DisplayName("persist and flush is refused with SQLSTATE 25006, not retried, and writes nothing")
		void persistAndFlush() throws SQLException {
			Throwable thrown = catchThrowable(() -> memos.persistAndFlush("persisted"));

			assertThat(sqlState(thrown)).as("%s", thrown).isEqualTo("25006");
			assertThat(memos.runs()).isEqualTo(1);
			assertThat(memosOnShard(tenant, "persisted")).isZero();
		}

		@Test
		@DisplayName("a JdbcTemplate insert in the transaction is refused with SQLSTATE 25006, not retried, and writes nothing")
		void jdbcTemplateInsert() throws SQLException {
			Throwable thrown = catchThrowable(() -> memos.jdbcInsert("jdbc"));

			assertThat(sqlState(thrown)).as("%s", thrown).isEqualTo("25006");
			assertThat(memos.runs()).isEqualTo(1);
			assertThat(memosOnShard(tenant, "jdbc")).isZero();
		}

		@Test
		@DisplayName("a read-only TransactionTemplate refuses a persist and flush with SQLSTATE 25006")
		void transactionTemplate() throws SQLException {
			TransactionTemplate template = new TransactionTemplate(transactionManager);
			template.setReadOnly(true);

			Throwable thrown = catchThrowable(() -> template.executeWithoutResult(status -> memos.writeAndFlush("template")));

			assertThat(sqlState(thrown)).as("%s", thrown).isEqualTo("25006");
			assertThat(memosOnShard(tenant, "template")).isZero();
		}

	}

	@Nested
	@DisplayName("a session of another tenant")
	class SessionOfAnotherTenant {

		private MockMvc mvc;

		private UUID id;

		private String other;

		@BeforeEach
		void memoAndOtherTenant() {
			this.mvc = MockMvcBuilders.webAppContextSetup(context)
				.addFilters(context.getBean(TenantHeaderFilter.class))
				.build();
			this.id = memos.write("secret").getId();
			this.other = "iso-other-" + TENANTS.incrementAndGet();
			admin.create(this.other, "shard-1");
		}

		@Test
		@DisplayName("open session in view: a find by id as another tenant in the same request is refused (it was served from the session before)")
		void findInTheSameRequest() throws Exception {
			this.mvc.perform(get("/memos/" + this.id + "/as/" + this.other).param("via", "find")
				.header("X-Tenant-Id", tenant))
				.andExpect(status().isConflict())
				.andExpect(jsonPath("$.error").value("TenantSwitchedException"));
		}

		@Test
		@DisplayName("open session in view: getReference as another tenant in the same request is refused")
		void referenceInTheSameRequest() throws Exception {
			this.mvc.perform(get("/memos/" + this.id + "/as/" + this.other).param("via", "reference")
				.header("X-Tenant-Id", tenant))
				.andExpect(status().isConflict())
				.andExpect(jsonPath("$.error").value("TenantSwitchedException"));
		}

		@Test
		@DisplayName("open session in view: a repository findById and a JPQL query as another tenant in the same request are refused")
		void repositoryAndQueryInTheSameRequest() throws Exception {
			for (String via : List.of("repository", "query")) {
				this.mvc.perform(get("/memos/" + this.id + "/as/" + this.other).param("via", via)
					.header("X-Tenant-Id", tenant))
					.andExpect(status().isConflict())
					.andExpect(jsonPath("$.error").value("TenantSwitchedException"));
			}
		}

		@Test
		@DisplayName("open session in view: the same tenant reads its memo twice in one request")
		void sameTenantReads() throws Exception {
			this.mvc.perform(get("/memos/" + this.id + "/as/" + tenant).param("via", "find")
				.header("X-Tenant-Id", tenant))
				.andExpect(status().isOk())
				.andExpect(jsonPath("$.second").value("secret of " + tenant));
		}

		@Test
		@DisplayName("a session kept across tenants (as open session in view keeps it): find, getReference and a transaction of the other tenant are refused")
		void sessionKeptAcrossTenants() {
			EntityManager em = entityManagerFactory.createEntityManager();
			try {
				Memo mine = em.find(Memo.class, this.id);
				assertThat(mine.getTitle()).isEqualTo("secret");
				try (TenantContext.Scope otherScope = TenantContext.bind(this.other)) {
					assertThat(catchThrowable(() -> em.find(Memo.class, this.id)))
						.isInstanceOf(TenantSwitchedException.class);
					assertThat(catchThrowable(() -> em.getReference(Memo.class, this.id)))
						.isInstanceOf(TenantSwitchedException.class);
				}
			}
			finally {
				em.close();
			}
		}

	}

}
