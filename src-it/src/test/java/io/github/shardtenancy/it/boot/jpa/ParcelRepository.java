package io.github.shardtenancy.it.boot.jpa;

import java.util.UUID;

import org.springframework.data.jpa.repository.JpaRepository;

/** Spring Data repository of parcels. */
public interface ParcelRepository extends JpaRepository<Parcel, UUID> {

}
