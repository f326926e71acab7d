package io.github.shardtenancy.it.boot.jpa;

import jakarta.persistence.Entity;
import jakarta.persistence.GeneratedValue;
import jakarta.persistence.GenerationType;
import jakarta.persistence.Id;
import jakarta.persistence.Table;
import jakarta.persistence.TableGenerator;
import org.hibernate.annotations.TenantId;

/**
 * A badge: a TABLE-generated id, which Hibernate fetches in isolated work on a second connection of the same tenant
 * ({@code select ... for update} and {@code update} of the id table, committed on its own) while the transaction runs.
 */
@Entity
@Table(name = "pg_badge")
public class Badge {

	@Id
	@GeneratedValue(strategy = GenerationType.TABLE, generator = "badge_ids")
	@TableGenerator(name = "badge_ids", table = "pg_badge_ids", pkColumnName = "sequence_name",
			valueColumnName = "next_val", allocationSize = 1)
	private Long id;

	@TenantId
	private String tenantId;

	private String name;

	protected Badge() {
	}

	/** @param name the name */
	public Badge(String name) {
		this.name = name;
	}

	public Long getId() {
		return this.id;
	}

	public String getTenantId() {
		return this.tenantId;
	}

	public String getName() {
		return this.name;
	}

}
