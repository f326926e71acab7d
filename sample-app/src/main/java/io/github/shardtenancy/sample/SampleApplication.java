package io.github.shardtenancy.sample;

import java.util.Arrays;
import java.util.Map;

import io.github.shardtenancy.sample.demo.DemoReport;
import io.github.shardtenancy.sample.demo.OrdersDemo;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.context.properties.ConfigurationPropertiesScan;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * The sample orders application.
 *
 * <ul>
 * <li>Without arguments: a web application ({@code POST /orders}, {@code GET /orders}, tenant in the
 * {@code X-Tenant-Id} header) on three embedded H2 shards, or on PostgreSQL with the {@code postgres} profile.</li>
 * <li>With {@code --demo}: no web server; runs {@link OrdersDemo}, prints its report and exits with status 0 if every
 * check held, 1 otherwise ({@code ./mvnw -Pdemo verify}).</li>
 * </ul>
 */
@SpringBootApplication
@ConfigurationPropertiesScan
public class SampleApplication {

	/** The program argument that runs the demo instead of the web application. */
	public static final String DEMO_ARGUMENT = "--demo";

	/**
	 * @param args Spring Boot arguments, plus {@value #DEMO_ARGUMENT} for the demo
	 */
	public static void main(String[] args) {
		if (!Arrays.asList(args).contains(DEMO_ARGUMENT)) {
			SpringApplication.run(SampleApplication.class, args);
			return;
		}
		String[] rest = Arrays.stream(args).filter(a -> !a.equals(DEMO_ARGUMENT)).toArray(String[]::new);
		SpringApplication application = new SpringApplication(SampleApplication.class);
		application.setWebApplicationType(WebApplicationType.NONE);
		// The report counts every rejection; Hibernate's WARN line per rejected statement would only drown it.
		application.setDefaultProperties(Map.of("spring.main.banner-mode", "off",
				"logging.level.io.github.shardtenancy.internal.move.Mover", "WARN",
				"logging.level.org.hibernate.orm.jdbc.error", "ERROR"));
		int status;
		ConfigurableApplicationContext context = application.run(rest);
		try {
			DemoReport report = context.getBean(OrdersDemo.class).run();
			System.out.println(report.render());
			status = report.passed() ? 0 : 1;
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			ex.printStackTrace();
			status = 1;
		}
		catch (RuntimeException ex) {
			ex.printStackTrace();
			status = 1;
		}
		int exitStatus = status;
		System.exit(SpringApplication.exit(context, () -> exitStatus));
	}

}
