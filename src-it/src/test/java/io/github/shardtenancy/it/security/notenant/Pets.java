package io.github.shardtenancy.it.security.notenant;

import java.util.UUID;

import io.github.shardtenancy.testing.reference.Pet;
import org.springframework.data.jpa.repository.JpaRepository;

/** Pets: tenant data. */
public interface Pets extends JpaRepository<Pet, UUID> {

}
