package io.github.shardtenancy;

import java.sql.ResultSet;
import java.sql.SQLException;

/**
 * Maps the current row of a {@link TenantTasks#queryAllShards scatter-gather query} on one shard.
 *
 * @param <T> the row type
 */
@FunctionalInterface
public interface ShardRowMapper<T> {

	/**
	 * @param shardId the shard the row was read on
	 * @param row the result set, on the row to map; do not move it
	 * @return the mapped row, possibly {@code null}
	 * @throws SQLException if a column cannot be read; the shard is then reported failed
	 */
	T map(String shardId, ResultSet row) throws SQLException;

}
