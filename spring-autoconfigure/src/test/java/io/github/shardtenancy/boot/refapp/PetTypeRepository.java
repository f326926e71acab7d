package io.github.shardtenancy.boot.refapp;

import org.springframework.data.jpa.repository.JpaRepository;

/** Pet types: reference data, read with or without a tenant. */
public interface PetTypeRepository extends JpaRepository<PetType, Integer> {

}
