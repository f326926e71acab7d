package io.github.shardtenancy.boot;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.orm.jpa.AbstractEntityManagerFactoryBean;
import org.springframework.orm.jpa.JpaVendorAdapter;
import org.springframework.orm.jpa.vendor.HibernateJpaDialect;

/**
 * Installs {@link ShardTenancyJpaDialect} on every Hibernate {@code EntityManagerFactory} bean (Boot's
 * {@code LocalContainerEntityManagerFactoryBean}) before it is initialised, so that the JPA transaction manager uses
 * it. Backs off when the factory is not Hibernate's, and, with a warning, when the application set a Hibernate JPA
 * dialect of its own on the factory bean or through its vendor adapter.
 */
class ShardTenancyJpaDialectInstaller implements BeanPostProcessor {

	private static final Logger log = LoggerFactory.getLogger(ShardTenancyJpaDialectInstaller.class);

	@Override
	public Object postProcessBeforeInitialization(Object bean, String beanName) {
		if (!(bean instanceof AbstractEntityManagerFactoryBean factory)) {
			return bean;
		}
		JpaVendorAdapter adapter = factory.getJpaVendorAdapter();
		Object dialect = factory.getJpaDialect() != null ? factory.getJpaDialect()
				: (adapter != null ? adapter.getJpaDialect() : null);
		if (dialect != null && dialect.getClass() == HibernateJpaDialect.class) {
			factory.setJpaDialect(new ShardTenancyJpaDialect());
		}
		else if (dialect instanceof HibernateJpaDialect && !(dialect instanceof ShardTenancyJpaDialect)) {
			log.warn("EntityManagerFactory '{}' has a JPA dialect of its own ({}): @Transactional isolation levels "
					+ "and read-only are not applied to shard transactions unless it extends {}", beanName,
					dialect.getClass().getName(), ShardTenancyJpaDialect.class.getName());
		}
		return bean;
	}

}
