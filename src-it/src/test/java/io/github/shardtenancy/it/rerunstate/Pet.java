package io.github.shardtenancy.it.rerunstate;

/** A pet with an {@code Integer} id, {@code null} until the repository sets it. Not thread-safe. */
public class Pet {

	private Integer id;

	private final String name;

	public Pet(String name) {
		this.name = name;
	}

	public Integer getId() {
		return this.id;
	}

	public void setId(Integer id) {
		this.id = id;
	}

	public String getName() {
		return this.name;
	}

}
