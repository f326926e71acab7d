package io.github.shardtenancy.testing.entities;

import java.util.UUID;

import io.github.shardtenancy.ReferenceData;
import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.Table;
import org.hibernate.annotations.TenantId;
import org.jspecify.annotations.Nullable;

/** One entity of each kind the entity check tells apart. */
public final class CheckedEntities {

	/** The reference table of {@link Country}, schema-qualified as an application may declare it. */
	public static final String COUNTRY_TABLE = "public.ec_country";

	private CheckedEntities() {
	}

	/** Tenant data: a {@code @TenantId} attribute. */
	@Entity
	@Table(name = "ec_note")
	public static class Note {

		@Id
		@Nullable UUID id;

		@TenantId
		@Column(name = "tenant_id")
		@Nullable String tenantId;

	}

	/** Neither: a {@code tenant_id} column mapped without {@code @TenantId}, the mistake the check is for. */
	@Entity
	@Table(name = "ec_leaky_note")
	public static class LeakyNote {

		@Id
		@Nullable UUID id;

		@Column(name = "tenant_id")
		@Nullable String tenantId;

	}

	/** Reference data by annotation. */
	@Entity
	@Table(name = "ec_pet_type")
	@ReferenceData
	public static class PetType {

		@Id
		@Nullable Long id;

		@Nullable String name;

	}

	/** Reference data by its table, declared as {@link #COUNTRY_TABLE}. */
	@Entity
	@Table(name = "ec_country")
	public static class Country {

		@Id
		@Nullable String code;

	}

}
