package io.github.shardtenancy.testing.reference;

import java.util.UUID;

import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.JoinColumn;
import jakarta.persistence.ManyToOne;
import jakarta.persistence.Table;
import org.hibernate.annotations.TenantId;

/** A tenant entity of the tests (table {@code pet}) with a foreign key to the reference entity {@link PetType}. */
@Entity
@Table(name = "pet")
public class Pet {

	@Id
	private UUID id = UUID.randomUUID();

	@TenantId
	@Column(name = "tenant_id")
	private String tenantId;

	private String name;

	@ManyToOne(optional = false)
	@JoinColumn(name = "type_id")
	private PetType type;

	protected Pet() {
	}

	public Pet(String name, PetType type) {
		this.name = name;
		this.type = type;
	}

	public String getName() {
		return this.name;
	}

	public PetType getType() {
		return this.type;
	}

}
