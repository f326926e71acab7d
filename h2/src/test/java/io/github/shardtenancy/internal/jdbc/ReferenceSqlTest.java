package io.github.shardtenancy.internal.jdbc;

import java.util.Set;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The reading of table names that decides what runs with no tenant bound: only {@code SELECT}s of reference tables.
 * A statement that names a tenant table anywhere a table can be named, or that the reading cannot be sure of, is
 * refused.
 */
@DisplayName("Tenant-free statements: only SELECTs of reference tables")
class ReferenceSqlTest {

	private static final Set<String> REFERENCE = Set.of("pet_type", "ref.color");

	@ParameterizedTest
	@ValueSource(strings = { "select p1_0.id,p1_0.name from pet_type p1_0 where p1_0.id=?",
			"SELECT * FROM PET_TYPE", "select * from \"pet_type\" t", "select count(*) from pet_type as t",
			"select t.name from pet_type t join ref.color c on c.id = t.id", "select 1",
			"select * from pet_type t, ref.color c where t.id = c.id",
			"select * from pet_type where name = 'select x from pet'",
			"select * from public.pet_type", "/* from pet */ select * from pet_type -- from pet",
			"select * from pet_type where id in (select id from pet_type)" })
	@DisplayName("reads of reference tables only are allowed")
	void allowed(String sql) {
		assertThat(ReferenceReadConnection.readsOnlyReferenceTables(sql, REFERENCE)).as(sql).isTrue();
	}

	@ParameterizedTest
	@ValueSource(strings = { "select * from pet", "select t.name from pet_type t join pet p on p.type_id = t.id",
			"select * from pet_type t left outer join pet p on p.type_id = t.id",
			"select * from pet_type t, pet p", "select * from pet_type t , \"PET\" p",
			"select * from pet_type where id in (select type_id from pet)",
			"select name from pet_type union select name from pet", "select * from public.pet",
			"select * from pet_type natural join pet", "select * from generate_series(1, 3)",
			"select * from pet_type t cross join lateral (select * from pet) p",
			"with x as (select * from pet_type) select * from x", "insert into pet_type values (1, 'a')",
			"update pet_type set name = 'b'", "delete from pet_type", "table pet", "call f()",
			"select E'\\'' from pet_type -- '", "select $$'$$, (select name from pet) from pet_type -- '",
			"select * from pet_type /* */ , pet" })
	@DisplayName("writes, reads of any other table, and statements the reading cannot be sure of are refused")
	void refused(String sql) {
		assertThat(ReferenceReadConnection.readsOnlyReferenceTables(sql, REFERENCE)).as(sql).isFalse();
	}

	@Test
	@DisplayName("the tables a write writes: after INTO, UPDATE and DELETE FROM, not those it only reads")
	void writeTargets() {
		assertThat(ReferenceSql.writeTargets("insert into pet_type (id) values (?)")).containsExactly("pet_type");
		assertThat(ReferenceSql.writeTargets("update \"PET_TYPE\" set name = ?")).containsExactly("pet_type");
		assertThat(ReferenceSql.writeTargets("delete from ref.color where id = ?")).containsExactly("ref.color");
		assertThat(ReferenceSql.writeTargets("merge into pet_type key (id) values (?, ?)")).containsExactly("pet_type");
		assertThat(ReferenceSql.writeTargets("insert into pet (id, type_id) select ?, id from pet_type"))
			.containsExactly("pet");
		assertThat(ReferenceSql.writeTargets("update pet set type_id = (select id from pet_type where name = ?)"))
			.containsExactly("pet");
		assertThat(ReferenceSql.writeTargets(
				"insert into pet (id) values (?) on conflict (id) do update set name = excluded.name"))
			.containsExactly("pet");
	}

	@Test
	@DisplayName("table names are found at any depth, unquoted and in lower case")
	void tablesNamed() {
		assertThat(ReferenceSql.tablesNamed(
				"select * from A a join \"Sch\".\"B\" b on 1=1 where x in (select y from c, d dd)"))
			.containsExactlyInAnyOrder("a", "sch.b", "c", "d");
	}

}
