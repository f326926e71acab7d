package io.github.shardtenancy.sample.live;

import java.util.List;

import io.github.shardtenancy.admin.TenantTable;
import io.github.shardtenancy.boot.ShardTenancyProperties;
import io.github.shardtenancy.directory.Directory;
import io.github.shardtenancy.move.HibernateTenantTables;
import io.github.shardtenancy.move.OnlineMover;
import io.github.shardtenancy.routing.TenantRouter;
import io.github.shardtenancy.topology.ShardTopology;
import jakarta.persistence.EntityManagerFactory;
import org.hibernate.SessionFactory;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.web.servlet.config.annotation.ViewControllerRegistry;
import org.springframework.web.servlet.config.annotation.WebMvcConfigurer;

/**
 * The live page's beans, present only in the web application (not in the {@code --demo} run): the
 * {@link OnlineMover} its move control uses, unless the application context already has one, the change capture its
 * moves need, and {@code /live} as the page's address.
 */
@Configuration(proxyBeanMethods = false)
@ConditionalOnWebApplication
class LiveConfiguration {

	/**
	 * The online mover over the tenant tables of the Hibernate metamodel, built as the core tests build it. Backs off
	 * when the context has an {@link OnlineMover} of its own.
	 */
	@Bean
	@ConditionalOnMissingBean
	OnlineMover sampleOnlineMover(Directory directory, TenantRouter router, ShardTopology topology,
			EntityManagerFactory entityManagerFactory, ShardTenancyProperties properties) {
		return new OnlineMover(directory, router, topology, tenantTables(entityManagerFactory), properties.getActor());
	}

	@Bean
	ChangeCaptureInstaller liveChangeCaptureInstaller(ShardTopology topology,
			EntityManagerFactory entityManagerFactory) {
		return new ChangeCaptureInstaller(topology, tenantTables(entityManagerFactory));
	}

	@Bean
	WebMvcConfigurer livePageAddress() {
		return new WebMvcConfigurer() {
			@Override
			public void addViewControllers(ViewControllerRegistry registry) {
				registry.addRedirectViewController("/live", "/live/index.html");
				registry.addRedirectViewController("/live/", "/live/index.html");
			}
		};
	}

	private static List<TenantTable> tenantTables(EntityManagerFactory entityManagerFactory) {
		return HibernateTenantTables.discover(entityManagerFactory.unwrap(SessionFactory.class));
	}

}
