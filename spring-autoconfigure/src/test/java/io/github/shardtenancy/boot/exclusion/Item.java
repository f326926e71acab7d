package io.github.shardtenancy.boot.exclusion;

import jakarta.persistence.Entity;
import jakarta.persistence.Id;

/** An entity of {@link ExclusionTests}'s application (no tenant column: it only runs without the starter). */
@Entity
public class Item {

	@Id
	private Long id;

	protected Item() {
	}

	public Long getId() {
		return this.id;
	}

}
