package io.github.shardtenancy.boot;

import java.util.Locale;

import org.springframework.boot.autoconfigure.condition.ConditionOutcome;
import org.springframework.boot.autoconfigure.condition.SpringBootCondition;
import org.springframework.context.annotation.ConditionContext;
import org.springframework.core.type.AnnotatedTypeMetadata;
import org.springframework.util.ClassUtils;

/**
 * Which tool migrates the directory and the shards, from {@code shard-tenancy.migrations.tool}: {@code liquibase},
 * {@code flyway}, or {@code auto} (the default): Flyway when hibernate-shard-tenancy-flyway and Flyway are on the
 * class path and Liquibase is not, else Liquibase.
 */
abstract class MigrationToolCondition extends SpringBootCondition {

	static final String PROPERTY = "shard-tenancy.migrations.tool";

	private final String tool;

	MigrationToolCondition(String tool) {
		this.tool = tool;
	}

	@Override
	public ConditionOutcome getMatchOutcome(ConditionContext context, AnnotatedTypeMetadata metadata) {
		String resolved = resolve(context.getEnvironment().getProperty(PROPERTY, "auto"), context.getClassLoader());
		String message = PROPERTY + " resolved to " + resolved;
		return resolved.equals(this.tool) ? ConditionOutcome.match(message) : ConditionOutcome.noMatch(message);
	}

	/** @return {@code liquibase} or {@code flyway} */
	static String resolve(String configured, ClassLoader classLoader) {
		String tool = configured.trim().toLowerCase(Locale.ROOT);
		if (!tool.equals("auto")) {
			return tool;
		}
		boolean flyway = ClassUtils.isPresent("org.flywaydb.core.Flyway", classLoader)
				&& ClassUtils.isPresent("io.github.shardtenancy.flyway.ShardTenancyFlyway", classLoader);
		return (flyway && !ClassUtils.isPresent("liquibase.Liquibase", classLoader)) ? "flyway" : "liquibase";
	}

	static class Liquibase extends MigrationToolCondition {

		Liquibase() {
			super("liquibase");
		}

	}

	static class Flyway extends MigrationToolCondition {

		Flyway() {
			super("flyway");
		}

	}

}
