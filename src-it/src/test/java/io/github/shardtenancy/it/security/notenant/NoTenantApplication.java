package io.github.shardtenancy.it.security.notenant;

import java.util.List;

import io.github.shardtenancy.ReferenceStatement;
import io.github.shardtenancy.ReferenceTables;
import io.github.shardtenancy.TenantAdmin;
import io.github.shardtenancy.TenantContext;
import io.github.shardtenancy.testing.pg.ScratchPostgres;
import io.github.shardtenancy.testing.reference.Pet;
import io.github.shardtenancy.testing.reference.PetType;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.persistence.autoconfigure.EntityScan;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * A Spring Boot / Spring Data JPA application on the test fixtures' pets: pet types are reference data, pets tenant
 * data.
 */
@SpringBootApplication
@EntityScan(basePackageClasses = PetType.class)
public class NoTenantApplication {

	/**
	 * Writes the pet type 1 ({@code cat}) and creates acme and globex on shard-1, with a pet each: Tom and Rex.
	 * @param context the started application
	 */
	public static void seed(ConfigurableApplicationContext context) {
		context.getBean(ReferenceTables.class)
			.write(List.of(ReferenceStatement.of("INSERT INTO pet_type (id, name) VALUES (?, ?)", 1, "cat")));
		TenantAdmin admin = context.getBean(TenantAdmin.class);
		admin.create("acme", "shard-1");
		admin.create("globex", "shard-1");
		PetTypes types = context.getBean(PetTypes.class);
		Pets pets = context.getBean(Pets.class);
		TenantContext.runAs("acme", () -> pets.save(new Pet("Tom", types.findById(1).orElseThrow())));
		TenantContext.runAs("globex", () -> pets.save(new Pet("Rex", types.findById(1).orElseThrow())));
	}

	/**
	 * Closes the application, then the server.
	 * @param context the application, or {@code null} if it did not start
	 * @param postgres the server, or {@code null} if it did not start
	 */
	public static void close(@Nullable ConfigurableApplicationContext context, @Nullable ScratchPostgres postgres) {
		if (context != null) {
			context.close();
		}
		if (postgres != null) {
			postgres.close();
		}
	}

}
