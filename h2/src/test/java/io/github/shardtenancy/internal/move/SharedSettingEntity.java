package io.github.shardtenancy.internal.move;

import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.Table;

/** A table shared by all tenants (no {@code @TenantId}): never moved. */
@Entity
@Table(name = "shared_setting")
public class SharedSettingEntity {

	@Id
	private Integer id;

	private String label;

	protected SharedSettingEntity() {
	}

}
