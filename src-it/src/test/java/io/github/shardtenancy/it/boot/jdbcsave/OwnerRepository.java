package io.github.shardtenancy.it.boot.jdbcsave;

import io.github.shardtenancy.ShardTenancy;
import io.github.shardtenancy.TenantContext;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.stereotype.Repository;

/**
 * Plain JDBC saves of {@link Owner}, in the caller's transaction. {@link #save} is the shape that lost writes when a
 * retry ran it again with the same object (issue 33): the id is set on the object before the INSERT, so a re-run after
 * a rejected INSERT takes the object for an existing row and updates nothing. {@link #saveAssigningId} is the recipe:
 * the same shape, the id taken with {@link ShardTenancy#assignId}, which sets it back to {@code null} when the attempt
 * fails.
 */
@Repository
public class OwnerRepository {

	private final JdbcTemplate jdbc;

	private final ShardTenancy tenancy;

	OwnerRepository(JdbcTemplate jdbc, ShardTenancy tenancy) {
		this.jdbc = jdbc;
		this.tenancy = tenancy;
	}

	/** Inserts a new owner (setting its id first), else updates it. */
	public void save(Owner owner) {
		if (owner.getId() == null) {
			owner.setId(this.tenancy.nextId());
			insert(owner);
		}
		else {
			update(owner);
		}
	}

	/**
	 * {@link #save} with the statements' text built in Java and no parameters, so that {@code JdbcTemplate} runs them
	 * on a plain {@code Statement} (the name is a UUID the caller made, the tenant a valid id).
	 */
	public void saveWithStatement(Owner owner) {
		if (owner.getId() == null) {
			owner.setId(this.tenancy.nextId());
			this.jdbc.update("INSERT INTO pg_jdbc_owner (id, tenant_id, name) VALUES (" + owner.getId() + ", '"
					+ TenantContext.current() + "', '" + owner.getName() + "')");
		}
		else {
			this.jdbc.update("UPDATE pg_jdbc_owner SET name = '" + owner.getName() + "' WHERE id = " + owner.getId());
		}
	}

	/** {@link #save}, with the id given by {@link ShardTenancy#assignId}. */
	public void saveAssigningId(Owner owner) {
		if (owner.getId() == null) {
			this.tenancy.assignId(owner::setId);
			insert(owner);
		}
		else {
			update(owner);
		}
	}

	private void insert(Owner owner) {
		this.jdbc.update("INSERT INTO pg_jdbc_owner (id, tenant_id, name) VALUES (?, ?, ?)", owner.getId(),
				TenantContext.current(), owner.getName());
	}

	private void update(Owner owner) {
		this.jdbc.update("UPDATE pg_jdbc_owner SET name = ? WHERE id = ?", owner.getName(), owner.getId());
	}

}
