package io.github.shardtenancy.boot.exclusion;

import org.springframework.data.repository.Repository;

/**
 * A Spring Data repository in the package of {@link ExclusionTests}'s application: Boot's Spring Data JPA
 * auto-configuration creates it whenever a {@code DataSource} bean exists.
 */
public interface ItemLookup extends Repository<Item, Long> {

	long count();

}
