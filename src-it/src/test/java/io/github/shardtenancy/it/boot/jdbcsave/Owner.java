package io.github.shardtenancy.it.boot.jdbcsave;

/** An owner row of {@code pg_jdbc_owner}: new while its id is {@code null}. A plain mutable object, not thread-safe. */
public class Owner {

	private Long id;

	private final String name;

	public Owner(String name) {
		this.name = name;
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

}
