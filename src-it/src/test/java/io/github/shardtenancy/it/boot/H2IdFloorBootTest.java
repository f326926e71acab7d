package io.github.shardtenancy.it.boot;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;

import io.github.shardtenancy.ReferenceStatement;
import io.github.shardtenancy.ShardTenancy;
import io.github.shardtenancy.testing.ids.SeededIds;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Through Spring Boot on H2: the shard changelogs the starter runs seed reference rows 1 to 6 on every shard
 * ({@link SeededIds#CHANGELOG}); the tenancy starts after them, so the first id of the table's counter is above them
 * and the reference write reaches both shards without a key collision.
 */
@DisplayName("Integer ids through Spring Boot (H2): the counter starts above the rows the shard changelogs seeded")
class H2IdFloorBootTest {

	@Test
	@DisplayName("reference rows 1-6 seeded by a shard changelog: the first nextIntId(table) is 7 and its write reaches every shard")
	void firstIdAboveSeededReferenceRows() throws SQLException {
		try (H2App app = H2App.start(H2App.newCluster("id-floor"), "instance",
				"shard-tenancy.liquibase.shard-changelogs=db/it-h2/orders.xml," + SeededIds.CHANGELOG,
				"shard-tenancy.reference-tables=ref_colour")) {
			ShardTenancy tenancy = app.bean(ShardTenancy.class);

			int id = tenancy.nextIntId("ref_colour");

			assertThat(id).isEqualTo(SeededIds.REFERENCE_ROWS + 1);
			tenancy.referenceTables()
				.write(List.of(ReferenceStatement.of("INSERT INTO ref_colour (id, name) VALUES (?, ?)", id,
						"teal")));
			for (String shard : H2App.SHARDS) {
				try (Connection c = app.rawConnection(shard); Statement st = c.createStatement();
						ResultSet rs = st.executeQuery("SELECT COUNT(*), MAX(id) FROM ref_colour")) {
					rs.next();
					assertThat(rs.getInt(1)).as("rows on " + shard).isEqualTo(SeededIds.REFERENCE_ROWS + 1);
					assertThat(rs.getInt(2)).isEqualTo(id);
				}
			}
		}
	}

}
