package io.github.shardtenancy.boot.refapp;

import io.github.shardtenancy.testing.reference.PetType;
import org.springframework.data.jpa.repository.JpaRepository;

/** Pet types: reference data, read with or without a tenant. */
public interface PetTypeRepository extends JpaRepository<PetType, Integer> {

}
