package io.github.shardtenancy.sample.live;

import io.github.shardtenancy.TenantMover;
import io.github.shardtenancy.boot.ShardTenancyBuilderCustomizer;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.web.servlet.config.annotation.ViewControllerRegistry;
import org.springframework.web.servlet.config.annotation.WebMvcConfigurer;

/**
 * The live page's beans, present only in the web application (not in the {@code --demo} run): {@code /live} as the
 * page's address. Its move control uses the auto-configured {@link TenantMover}, which also installs the change
 * capture on the tenant tables at start-up.
 */
@Configuration(proxyBeanMethods = false)
@ConditionalOnWebApplication
class LiveConfiguration {

	/**
	 * Paces the steps of the page's moves: {@link LiveMoves} is the tenancy's move hook.
	 * @param moves the page's moves
	 * @return the customizer of the tenancy's builder
	 */
	@Bean
	ShardTenancyBuilderCustomizer livePacing(LiveMoves moves) {
		return (builder) -> builder.moveHook(moves);
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

}
