package io.github.shardtenancy.internal.jdbc;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The statement shapes kept per SQL text: the same answers as reading the statement each time, the same text of begin
 * and query per begin statement, and a bounded map.
 */
@DisplayName("Statement shapes")
class SqlShapeTest {

	@BeforeEach
	@AfterEach
	void forget() {
		SqlShape.forgetAll();
	}

	@ParameterizedTest
	@ValueSource(strings = { "select * from note where id = ?", "  SELECT 1", "SELECT 1; DELETE FROM note",
			"INSERT INTO note VALUES (?)", "TRUNCATE note", "CREATE TEMP TABLE t (n int)", "SHOW TABLES", "select",
			"selection", "/* c */ UPDATE note SET body = ?", "" })
	@DisplayName("a kept shape answers as the classifier and the begin's rule do on each use")
	void sameAnswers(String sql) {
		SqlShape shape = SqlShape.of(sql);
		assertThat(shape.actsOnWholeTables).isEqualTo(StatementClassifier.actsOnWholeTables(sql));
		assertThat(shape.read).isEqualTo(StatementClassifier.isRead(sql));
		assertThat(shape.canTravelWithBegin).isEqualTo(FenceBegin.canTravelWith(sql));
		assertThat(shape.insertInto).isEqualTo(StatementClassifier.insertInto(sql));
		assertThat(shape.updateOf).isEqualTo(StatementClassifier.insertInto(sql) == null
				? StatementClassifier.updateOf(sql) : null);
		assertThat(SqlShape.of(new String(sql))).isSameAs(shape);
	}

	@ParameterizedTest
	@CsvSource(delimiter = '|', nullValues = "null", value = {
			"INSERT INTO owners (id, name) VALUES (?, ?)|owners|null",
			"  insert into App.Owners values (?)|owners|null",
			"/* c */ INSERT INTO \"Mixed Case\" (id) VALUES (1)|Mixed Case|null",
			"UPDATE owners SET name = ? WHERE id = ?|null|owners",
			"update only public.pets set name = ?|null|pets",
			"/* c */UPDATE \"s\".\"T\" SET x = 1|null|T",
			"WITH x AS (SELECT 1) UPDATE owners SET name = ?|null|null",
			"DELETE FROM owners WHERE id = ?|null|null",
			"INSERT owners VALUES (1)|null|null",
			"SELECT 1|null|null" })
	@DisplayName("the table an INSERT INTO or an UPDATE names, for the retry's check of re-runs")
	void writtenTable(String sql, String inserted, String updated) {
		assertThat(StatementClassifier.insertInto(sql)).isEqualTo(inserted);
		assertThat(StatementClassifier.updateOf(sql)).isEqualTo(updated);
	}

	@Test
	@DisplayName("begin and query are one text per begin statement, built again when the begin statement differs")
	void withBegin() {
		SqlShape shape = SqlShape.of("SELECT body FROM note WHERE id = ?");
		String first = shape.withBegin("SELECT shard_fence_begin(?, ?)");
		assertThat(first).isEqualTo("SELECT shard_fence_begin(?, ?);\nSELECT body FROM note WHERE id = ?");
		assertThat(shape.withBegin(new String("SELECT shard_fence_begin(?, ?)"))).isSameAs(first);
		assertThat(shape.withBegin("SELECT other_begin(?, ?)"))
			.isEqualTo("SELECT other_begin(?, ?);\nSELECT body FROM note WHERE id = ?");
		assertThat(shape.withBegin("SELECT shard_fence_begin(?, ?)")).isEqualTo(first);
	}

	@Test
	@DisplayName("the map keeps a bounded number of texts, and no long ones; past it, statements are read each time")
	void bounded() {
		String longSql = "SELECT " + "x".repeat(SqlShape.MAX_SQL_LENGTH) + " FROM note";
		assertThat(SqlShape.of(longSql)).isNotSameAs(SqlShape.of(longSql));
		assertThat(SqlShape.of(longSql).read).isTrue();
		for (int i = 0; i <= SqlShape.MAX_ENTRIES; i++) {
			SqlShape.of("SELECT " + i + " FROM note");
		}
		assertThat(SqlShape.size()).isEqualTo(SqlShape.MAX_ENTRIES);
		String unkept = "DELETE FROM note WHERE body = 'unkept'";
		SqlShape shape = SqlShape.of(unkept);
		assertThat(shape.read).isFalse();
		assertThat(SqlShape.of(unkept)).isNotSameAs(shape);
		assertThat(SqlShape.size()).isEqualTo(SqlShape.MAX_ENTRIES);
	}

}
