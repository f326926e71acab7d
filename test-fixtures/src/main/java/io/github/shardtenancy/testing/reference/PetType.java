package io.github.shardtenancy.testing.reference;

import io.github.shardtenancy.ReferenceData;
import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.Table;

/** A reference entity of the tests (table {@code pet_type}, changelog {@code db/testing/pets.xml}): the same rows on every shard. */
@Entity
@Table(name = "pet_type")
@ReferenceData
public class PetType {

	@Id
	private Integer id;

	private String name;

	protected PetType() {
	}

	public PetType(Integer id, String name) {
		this.id = id;
		this.name = name;
	}

	public Integer getId() {
		return this.id;
	}

	public String getName() {
		return this.name;
	}

}
