package io.github.shardtenancy.it.security.notenant;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;

import io.github.shardtenancy.NoTenantBoundException;
import io.github.shardtenancy.TenantContext;
import io.github.shardtenancy.testing.pg.ScratchPostgres;
import io.github.shardtenancy.testing.reference.Pet;
import io.github.shardtenancy.testing.reference.PetType;
import jakarta.persistence.EntityManager;
import jakarta.persistence.EntityManagerFactory;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.transaction.support.TransactionTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

/**
 * Work with no tenant bound in a Spring Boot / Spring Data JPA application ({@link NoTenantApplication}) on two
 * PostgreSQL shards of a scratch server, connected as its superuser as many a first set-up is: reference data reads
 * through the repository, {@code JdbcTemplate} and native SQL run as the role {@code shard_tenancy_reference}, which the
 * application's start created and granted the reference table; SQL that reaches a tenant table where the library's
 * reading of the text cannot see it (a function called in the select list), which the superuser would read past
 * row-level security, is refused by the database and reaches the code as {@link NoTenantBoundException}, on every way
 * in, in auto-commit and inside a read-only or read-write transaction.
 */
@DisplayName("PostgreSQL with Spring Boot: work with no tenant bound runs as the reference role, whatever reaches it")
class PostgresNoTenantBootTest {

	static ScratchPostgres postgres;

	static ConfigurableApplicationContext context;

	static JdbcTemplate jdbc;

	@BeforeAll
	static void start() throws SQLException {
		postgres = ScratchPostgres.start("no-tenant-boot");
		for (String database : List.of("directory", "shard1", "shard2")) {
			postgres.createDatabase(database, 1).close();
		}
		context = new SpringApplicationBuilder(NoTenantApplication.class).web(WebApplicationType.NONE)
			.properties("shard-tenancy.directory.url=" + url("directory"),
					"shard-tenancy.directory.username=" + postgres.server().user(),
					"shard-tenancy.directory.password=" + postgres.server().password(),
					"shard-tenancy.shards.shard-1.url=" + url("shard1"),
					"shard-tenancy.shards.shard-1.username=" + postgres.server().user(),
					"shard-tenancy.shards.shard-1.password=" + postgres.server().password(),
					"shard-tenancy.shards.shard-2.url=" + url("shard2"),
					"shard-tenancy.shards.shard-2.username=" + postgres.server().user(),
					"shard-tenancy.shards.shard-2.password=" + postgres.server().password(),
					"shard-tenancy.liquibase.shard-changelogs=db/testing/pets.xml", "shard-tenancy.sync.interval=1h",
					"shard-tenancy.actor=no-tenant-boot", "spring.liquibase.enabled=false", "spring.jmx.enabled=false")
			.run();
		jdbc = context.getBean(JdbcTemplate.class);
		for (String shard : List.of("shard1", "shard2")) {
			try (Connection c = DriverManager.getConnection(url(shard), postgres.server().user(),
					postgres.server().password()); Statement s = c.createStatement()) {
				s.execute("CREATE FUNCTION every_pet() RETURNS text LANGUAGE sql AS "
						+ "'SELECT string_agg(name, '','' ORDER BY name) FROM pet'");
			}
		}
		NoTenantApplication.seed(context);
	}

	@AfterAll
	static void stop() {
		NoTenantApplication.close(context, postgres);
	}

	@Test
	@DisplayName("repository, JdbcTemplate and native reads of the reference table run as the reference role")
	void referenceReads() {
		assertThat(TenantContext.current()).isNull();
		assertThat(context.getBean(PetTypes.class).findAll()).extracting(PetType::getName).containsExactly("cat");
		assertThat(jdbc.queryForObject("SELECT current_user FROM pet_type WHERE id = 1", String.class))
			.isEqualTo("shard_tenancy_reference");
		EntityManager em = context.getBean(EntityManagerFactory.class).createEntityManager();
		try {
			assertThat(em.createNativeQuery("SELECT name FROM pet_type").getResultList()).containsExactly("cat");
		}
		finally {
			em.close();
		}
	}

	@Test
	@DisplayName("a tenant table read through a function: refused by the database as NoTenantBoundException through "
			+ "JdbcTemplate, a native query, and in read-only and read-write transactions; the tenants' rows exist")
	void tenantTableRefused() throws Exception {
		String sql = "SELECT every_pet() FROM pet_type WHERE id = 1";
		assertRefused(catchThrowable(() -> jdbc.queryForObject(sql, String.class)));
		EntityManager em = context.getBean(EntityManagerFactory.class).createEntityManager();
		try {
			assertRefused(catchThrowable(() -> em.createNativeQuery(sql).getSingleResult()));
		}
		finally {
			em.close();
		}
		TransactionTemplate transactions = context.getBean(TransactionTemplate.class);
		for (boolean readOnly : List.of(true, false)) {
			TransactionTemplate template = new TransactionTemplate(transactions.getTransactionManager());
			template.setReadOnly(readOnly);
			assertRefused(catchThrowable(() -> template.execute((status) -> jdbc.queryForObject(sql, String.class))));
		}
		// The rows the refusal kept out are there: the tenants see theirs.
		Pets pets = context.getBean(Pets.class);
		List<Pet> acme = TenantContext.callAs("acme", pets::findAll);
		List<Pet> globex = TenantContext.callAs("globex", pets::findAll);
		assertThat(acme).extracting(Pet::getName).containsExactly("Tom");
		assertThat(globex).extracting(Pet::getName).containsExactly("Rex");
	}

	private static void assertRefused(Throwable thrown) {
		assertThat(thrown).as("thrown").isNotNull();
		Throwable cause = thrown;
		while (cause != null && !(cause instanceof NoTenantBoundException)) {
			cause = cause.getCause();
		}
		assertThat(cause).as("cause of %s", thrown).isInstanceOf(NoTenantBoundException.class);
		assertThat(cause.getMessage()).contains("shard_tenancy_reference", "permission denied for table pet");
	}

	private static String url(String database) {
		return postgres.server().jdbcUrl().replace("/postgres", "/" + database);
	}

}
