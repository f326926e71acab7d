package io.github.shardtenancy.boot.refapp;

import java.util.List;
import java.util.UUID;

import io.github.shardtenancy.testing.reference.Pet;
import org.springframework.data.jpa.repository.JpaRepository;
import org.springframework.data.jpa.repository.Query;

/** Pets: tenant data. */
public interface PetRepository extends JpaRepository<Pet, UUID> {

	/** @return each pet's name and its type's name, joined on the tenant's shard */
	@Query("select p.name || ':' || p.type.name from Pet p order by p.name")
	List<String> namesWithTypes();

}
