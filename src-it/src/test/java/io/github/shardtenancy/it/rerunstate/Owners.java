package io.github.shardtenancy.it.rerunstate;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;

import io.github.shardtenancy.ShardTenancy;
import io.github.shardtenancy.TenantContext;
import io.github.shardtenancy.retry.RetryAttempts;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.core.namedparam.MapSqlParameterSource;
import org.springframework.jdbc.core.namedparam.NamedParameterJdbcTemplate;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.jdbc.core.simple.SimpleJdbcInsert;
import org.springframework.stereotype.Repository;

/**
 * Plain JDBC repositories of the usual shape, {@code if (o.getId() == null) { o.setId(next id); INSERT } else
 * { UPDATE ... WHERE id = ? }}, through each of Spring's JDBC APIs ({@link Path}), taking the id one of three ways
 * ({@link Recipe}); plus an upsert, a per-tenant counter and {@code Integer}-id pets. Every id the repository takes is
 * recorded ({@link #assigned()}). Thread-safe.
 */
@Repository
public class Owners {

	/** Spring's JDBC API a repository writes with. */
	public enum Path {

		JDBC_TEMPLATE, NAMED_PARAMETER_JDBC_TEMPLATE, JDBC_CLIENT,

		/** {@link SimpleJdbcInsert} with {@code usingColumns} (tenant_id included) for the INSERT, JdbcTemplate for the UPDATE. */
		SIMPLE_JDBC_INSERT

	}

	/** How a new object gets its id. */
	public enum Recipe {

		/** {@code o.setId(tenancy.nextId())}: the id survives a failed attempt (issue 33's application). */
		NAIVE,

		/** {@code tenancy.assignId(o::setId)}: reset to {@code null} when the attempt fails. */
		ASSIGN_ID,

		/** {@code o.setId(tenancy.nextId())} and {@code RetryAttempts.onRollback(() -> o.setId(null))}. */
		ON_ROLLBACK

	}

	static final String INSERT = "INSERT INTO rs_owner (id, tenant_id, name, status) VALUES (?, ?, ?, ?)";

	static final String UPDATE = "UPDATE rs_owner SET name = ?, status = ? WHERE id = ?";

	private final JdbcTemplate jdbc;

	private final NamedParameterJdbcTemplate named;

	private final JdbcClient client;

	private final SimpleJdbcInsert simpleInsert;

	private final ShardTenancy tenancy;

	private final List<Long> assigned = Collections.synchronizedList(new ArrayList<>());

	Owners(JdbcTemplate jdbc, NamedParameterJdbcTemplate named, JdbcClient client, ShardTenancy tenancy) {
		this.jdbc = jdbc;
		this.named = named;
		this.client = client;
		this.simpleInsert = new SimpleJdbcInsert(jdbc).withTableName("rs_owner")
			.usingColumns("id", "tenant_id", "name", "status");
		this.tenancy = tenancy;
	}

	/**
	 * Saves an owner: inserts it if its id is {@code null} (setting the id first), else updates its row.
	 * @return the rows the INSERT or UPDATE wrote
	 */
	public int save(Path path, Recipe recipe, Owner owner) {
		if (owner.getId() == null) {
			switch (recipe) {
				case NAIVE -> owner.setId(this.tenancy.nextId());
				case ASSIGN_ID -> this.tenancy.assignId(owner::setId);
				case ON_ROLLBACK -> {
					owner.setId(this.tenancy.nextId());
					RetryAttempts.onRollback(() -> owner.setId(null));
				}
			}
			this.assigned.add(owner.getId());
			return insert(path, owner);
		}
		return update(path, owner);
	}

	private int insert(Path path, Owner owner) {
		String tenant = TenantContext.current();
		return switch (path) {
			case JDBC_TEMPLATE -> this.jdbc.update(INSERT, owner.getId(), tenant, owner.getName(), owner.getStatus());
			case NAMED_PARAMETER_JDBC_TEMPLATE -> this.named.update(
					"INSERT INTO rs_owner (id, tenant_id, name, status) VALUES (:id, :tenant, :name, :status)",
					new MapSqlParameterSource().addValue("id", owner.getId())
						.addValue("tenant", tenant)
						.addValue("name", owner.getName())
						.addValue("status", owner.getStatus()));
			case JDBC_CLIENT -> this.client
				.sql("INSERT INTO rs_owner (id, tenant_id, name, status) VALUES (:id, :tenant, :name, :status)")
				.param("id", owner.getId())
				.param("tenant", tenant)
				.param("name", owner.getName())
				.param("status", owner.getStatus())
				.update();
			case SIMPLE_JDBC_INSERT -> this.simpleInsert.execute(Map.of("id", owner.getId(), "tenant_id", tenant,
					"name", owner.getName(), "status", owner.getStatus()));
		};
	}

	private int update(Path path, Owner owner) {
		return switch (path) {
			case JDBC_TEMPLATE, SIMPLE_JDBC_INSERT -> this.jdbc.update(UPDATE, owner.getName(), owner.getStatus(),
					owner.getId());
			case NAMED_PARAMETER_JDBC_TEMPLATE -> this.named.update(
					"UPDATE rs_owner SET name = :name, status = :status WHERE id = :id",
					new MapSqlParameterSource().addValue("id", owner.getId())
						.addValue("name", owner.getName())
						.addValue("status", owner.getStatus()));
			case JDBC_CLIENT -> this.client.sql("UPDATE rs_owner SET name = :name, status = :status WHERE id = :id")
				.param("id", owner.getId())
				.param("name", owner.getName())
				.param("status", owner.getStatus())
				.update();
		};
	}

	/** Saves a pet with an {@code Integer} id, the same shape as {@link #save}, with JdbcTemplate. */
	public int savePet(Recipe recipe, Pet pet) {
		if (pet.getId() == null) {
			switch (recipe) {
				case NAIVE -> pet.setId(this.tenancy.nextIntId("rs_pet"));
				case ASSIGN_ID -> this.tenancy.assignIntId("rs_pet", pet::setId);
				case ON_ROLLBACK -> {
					pet.setId(this.tenancy.nextIntId("rs_pet"));
					RetryAttempts.onRollback(() -> pet.setId(null));
				}
			}
			this.assigned.add(pet.getId().longValue());
			return this.jdbc.update("INSERT INTO rs_pet (id, tenant_id, name) VALUES (?, ?, ?)", pet.getId(),
					TenantContext.current(), pet.getName());
		}
		return this.jdbc.update("UPDATE rs_pet SET name = ? WHERE id = ?", pet.getName(), pet.getId());
	}

	/** Inserts a pet by name with a fresh id (no object kept). */
	public void insertPet(String name) {
		this.jdbc.update("INSERT INTO rs_pet (id, tenant_id, name) VALUES (?, ?, ?)", this.tenancy.nextIntId("rs_pet"),
				TenantContext.current(), name);
	}

	/** The upsert shape: {@code UPDATE}, and {@code INSERT} when it matched no row. */
	public void putSetting(String name, String value) {
		String tenant = TenantContext.current();
		int updated = this.jdbc.update("UPDATE rs_setting SET setting_value = ? WHERE tenant_id = ? AND name = ?", value,
				tenant, name);
		if (updated == 0) {
			this.jdbc.update("INSERT INTO rs_setting (tenant_id, name, setting_value) VALUES (?, ?, ?)", tenant, name,
					value);
		}
	}

	/** Creates the bound tenant's counter, at 0 (outside any transaction: auto-commit). */
	public void createTally() {
		this.jdbc.update("INSERT INTO rs_tally (tenant_id, n) VALUES (?, 0)", TenantContext.current());
	}

	/** @return the bound tenant's counter */
	public int tally() {
		return this.jdbc.queryForObject("SELECT n FROM rs_tally WHERE tenant_id = ?", Integer.class,
				TenantContext.current());
	}

	/** Sets the bound tenant's counter. */
	public void setTally(int n) {
		this.jdbc.update("UPDATE rs_tally SET n = ? WHERE tenant_id = ?", n, TenantContext.current());
	}

	/** @return every id {@link #save} and {@link #savePet} took since the last {@link #reset()}, in order */
	public List<Long> assigned() {
		synchronized (this.assigned) {
			return List.copyOf(this.assigned);
		}
	}

	public void reset() {
		this.assigned.clear();
	}

}
