package io.github.shardtenancy.it.security.notenant;

import io.github.shardtenancy.testing.reference.PetType;
import org.springframework.data.jpa.repository.JpaRepository;

/** Pet types: reference data. */
public interface PetTypes extends JpaRepository<PetType, Integer> {

}
