package io.github.shardtenancy.benchmarks.app.domain;

import jakarta.persistence.MappedSuperclass;
import jakarta.persistence.PostLoad;
import jakarta.persistence.PostPersist;
import jakarta.persistence.Transient;
import org.springframework.data.domain.Persistable;

/**
 * An entity with an id its creator assigns, which tells Spring Data whether it is new: new until Hibernate loaded or
 * persisted it. So Spring Data's {@code save} of a new entity persists it instead of merging it (a merge of an entity
 * with an assigned id selects it first: one more round trip); the same on both sides of a comparison. See
 * https://docs.spring.io/spring-data/jpa/reference/jpa/entity-persistence.html. Not thread-safe, as entities are not.
 *
 * @param <K> the id's type
 */
@MappedSuperclass
public abstract class PersistableEntity<K> implements Persistable<K> {

	/** Whether the entity is not in the database yet (neither loaded nor persisted by this instance). */
	@Transient
	private boolean isNew = true;

	/** @return whether the entity was neither loaded from nor persisted to the database yet */
	@Override
	public boolean isNew() {
		return this.isNew;
	}

	@PostLoad
	@PostPersist
	void markNotNew() {
		this.isNew = false;
	}

}
