package io.github.shardtenancy.it.rerunstate;

import java.util.ArrayDeque;
import java.util.Collection;
import java.util.Deque;

/**
 * An owner as a request builds it, before it is saved: the argument object a {@code @Transactional} service method
 * receives, and receives again when its call is retried. {@code id} is {@code null} until the repository sets it.
 * Not thread-safe.
 */
public class Owner {

	private Long id;

	private final String name;

	private String status = "DRAFT";

	private final Deque<String> pets = new ArrayDeque<>();

	public Owner(String name, Collection<String> pets) {
		this.name = name;
		this.pets.addAll(pets);
	}

	public Long getId() {
		return this.id;
	}

	public void setId(Long id) {
		this.id = id;
	}

	public String getName() {
		return this.name;
	}

	public String getStatus() {
		return this.status;
	}

	public void setStatus(String status) {
		this.status = status;
	}

	/** @return the pets still to register, taken one by one by the service; the live queue */
	public Deque<String> pets() {
		return this.pets;
	}

}
