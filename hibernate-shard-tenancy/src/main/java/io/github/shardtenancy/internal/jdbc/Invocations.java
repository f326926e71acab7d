package io.github.shardtenancy.internal.jdbc;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;

/** Forwards a proxied call to its target, throwing what the target threw (not the reflection wrapper). */
final class Invocations {

	private Invocations() {
	}

	static Object invokeOn(Object target, Method method, Object[] args) throws Throwable {
		try {
			return method.invoke(target, args);
		}
		catch (InvocationTargetException ex) {
			throw ex.getTargetException();
		}
	}

}
