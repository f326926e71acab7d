package io.github.shardtenancy.boot;

import java.io.IOException;
import java.net.URL;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Properties;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.springframework.boot.EnvironmentPostProcessor;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.context.annotation.ImportCandidates;
import org.springframework.boot.diagnostics.FailureAnalyzer;
import org.springframework.core.env.MapPropertySource;
import org.springframework.core.env.StandardEnvironment;
import org.springframework.core.io.UrlResource;
import org.springframework.core.io.support.PropertiesLoaderUtils;

import static org.assertj.core.api.Assertions.assertThat;

/** The registration files and the environment defaults. */
class ShardTenancyEnvironmentPostProcessorTests {

	private static List<String> names(Properties factories, Class<?> type) {
		return Arrays.stream(factories.getProperty(type.getName(), "").split(",")).map(String::trim).toList();
	}

	private final ShardTenancyEnvironmentPostProcessor processor = new ShardTenancyEnvironmentPostProcessor();

	@Test
	@DisplayName("Hibernate's schema tool and Boot's own Liquibase and Flyway default to off, so Boot never opens a routed connection without a tenant")
	void ddlAutoDefaultsToNone() {
		StandardEnvironment environment = new StandardEnvironment();

		this.processor.postProcessEnvironment(environment, new SpringApplication());

		assertThat(environment.getProperty("spring.jpa.hibernate.ddl-auto")).isEqualTo("none");
		assertThat(environment.getProperty("spring.liquibase.enabled")).isEqualTo("false");
		assertThat(environment.getProperty("spring.flyway.enabled")).isEqualTo("false");
		assertThat(environment.getProperty("spring.test.database.replace")).as("test slices keep the routing DataSource")
			.isEqualTo("none");
	}

	@Test
	@DisplayName("the application's own ddl-auto wins")
	void applicationValueWins() {
		StandardEnvironment environment = new StandardEnvironment();
		environment.getPropertySources()
			.addFirst(new MapPropertySource("app", Map.of("spring.jpa.hibernate.ddl-auto", "validate")));

		this.processor.postProcessEnvironment(environment, new SpringApplication());

		assertThat(environment.getProperty("spring.jpa.hibernate.ddl-auto")).isEqualTo("validate");
	}

	@Test
	@DisplayName("nothing is added when shard tenancy is switched off")
	void nothingWhenDisabled() {
		StandardEnvironment environment = new StandardEnvironment();
		environment.getPropertySources()
			.addFirst(new MapPropertySource("app", Map.of("shard-tenancy.enabled", "false")));

		this.processor.postProcessEnvironment(environment, new SpringApplication());

		assertThat(environment.getProperty("spring.jpa.hibernate.ddl-auto")).isNull();
	}

	@Test
	@DisplayName("the auto-configuration, the failure analyzer and the environment post-processor are registered")
	void registrations() throws IOException {
		ClassLoader loader = getClass().getClassLoader();
		assertThat(ImportCandidates.load(AutoConfiguration.class, loader))
			.contains(ShardTenancyAutoConfiguration.class.getName());
		List<String> analyzers = new ArrayList<>();
		List<String> postProcessors = new ArrayList<>();
		for (URL url : Collections.list(loader.getResources("META-INF/spring.factories"))) {
			Properties factories = PropertiesLoaderUtils.loadProperties(new UrlResource(url));
			analyzers.addAll(names(factories, FailureAnalyzer.class));
			postProcessors.addAll(names(factories, EnvironmentPostProcessor.class));
		}
		assertThat(analyzers).contains(ShardTenancyFailureAnalyzer.class.getName());
		assertThat(postProcessors).contains(ShardTenancyEnvironmentPostProcessor.class.getName());
	}

}
