package io.github.shardtenancy.boot.test;

import java.util.UUID;

import io.github.shardtenancy.TenantContext;
import io.github.shardtenancy.boot.testapp.TestApplication;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.jdbc.test.autoconfigure.JdbcTest;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.test.context.ContextConfiguration;
import org.springframework.test.context.transaction.AfterTransaction;
import org.springframework.test.context.transaction.TestTransaction;

import static org.assertj.core.api.Assertions.assertThat;

/** {@code @JdbcTest} with the starter on an H2 shard: a method-level {@link WithTenant} and a rolled-back insert. */
@JdbcTest(properties = {
		"shard-tenancy.directory.url=jdbc:h2:mem:jdbctest-directory;DB_CLOSE_DELAY=-1;LOCK_TIMEOUT=10000",
		"shard-tenancy.shards.shard-1.url=jdbc:h2:mem:jdbctest-shard-1;DB_CLOSE_DELAY=-1;LOCK_TIMEOUT=10000",
		"shard-tenancy.liquibase.shard-changelogs=db/test-shard.xml", "shard-tenancy.sync.interval=1h" })
@ContextConfiguration(classes = TestApplication.class)
class JdbcTestWithTenantTests {

	@Autowired
	private JdbcTemplate jdbc;

	@AfterAll
	static void noTenantIsLeftBound() {
		assertThat(TenantContext.current()).isNull();
	}

	@AfterTransaction
	void insertIsRolledBack() {
		assertThat(TenantContext.current()).isEqualTo("initech");
		assertThat(this.jdbc.queryForObject("select count(*) from note", Integer.class)).isZero();
	}

	@Test
	@WithTenant(value = "initech", create = true)
	@DisplayName("a row inserted with JdbcTemplate in the test-managed transaction is read back on the tenant's shard")
	void insertAndReadInTheTenantsTransaction() {
		assertThat(TestTransaction.isActive()).isTrue();
		this.jdbc.update("insert into note (id, tenant_id, title) values (?, ?, ?)", UUID.randomUUID(), "initech",
				"jdbc note");

		assertThat(this.jdbc.queryForList("select title from note where tenant_id = ?", String.class, "initech"))
			.containsExactly("jdbc note");
	}

}
