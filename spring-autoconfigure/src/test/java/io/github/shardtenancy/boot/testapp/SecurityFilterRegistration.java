package io.github.shardtenancy.boot.testapp;

import org.springframework.boot.web.servlet.DelegatingFilterProxyRegistrationBean;

/**
 * Spring Security's filter chain registered with the servlet container as Spring Boot's
 * {@code SecurityFilterAutoConfiguration} registers it (at {@code spring.security.filter.order}, -100), for the tests
 * that build a chain with {@code @EnableWebSecurity} but have no Boot security auto-configuration on the class path.
 */
public final class SecurityFilterRegistration {

	private SecurityFilterRegistration() {
	}

	/** @return the registration of the {@code springSecurityFilterChain} bean, to declare as a bean */
	public static DelegatingFilterProxyRegistrationBean atBootOrder() {
		DelegatingFilterProxyRegistrationBean registration = new DelegatingFilterProxyRegistrationBean(
				"springSecurityFilterChain");
		registration.setOrder(-100);
		return registration;
	}

}
