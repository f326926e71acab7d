package io.github.shardtenancy.boot;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;

import io.github.shardtenancy.boot.retry.CommittedTransactionListener;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.transaction.ConfigurableTransactionManager;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.TransactionExecutionListener;

/**
 * Adds a listener (the {@link CommittedTransactionListener} unless told another) once to every imperative transaction
 * manager bean that accepts execution listeners: those Spring Boot creates and those the application defines itself
 * (Boot's own {@code TransactionManagerCustomizers} reach only the former). Runs before the bean's initialization
 * callbacks.
 */
class CommittedTransactionListenerInstaller implements BeanPostProcessor {

	private final TransactionExecutionListener listener;

	CommittedTransactionListenerInstaller() {
		this(new CommittedTransactionListener());
	}

	CommittedTransactionListenerInstaller(TransactionExecutionListener listener) {
		this.listener = listener;
	}

	@Override
	public Object postProcessBeforeInitialization(Object bean, String beanName) {
		if (bean instanceof PlatformTransactionManager && bean instanceof ConfigurableTransactionManager manager) {
			Collection<TransactionExecutionListener> listeners = manager.getTransactionExecutionListeners();
			if (!listeners.contains(this.listener)) {
				try {
					manager.addListener(this.listener);
				}
				catch (UnsupportedOperationException ex) {
					// The application set an unmodifiable collection: replace it with a copy that also holds ours.
					List<TransactionExecutionListener> copy = new ArrayList<>(listeners);
					copy.add(this.listener);
					manager.setTransactionExecutionListeners(copy);
				}
			}
		}
		return bean;
	}

}
