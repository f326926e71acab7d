package io.github.shardtenancy.internal.jdbc;

import java.sql.ParameterMetaData;
import java.sql.SQLException;

/**
 * The parameter metadata of a query prepared with the fence begin, as the query's own: the begin's parameters
 * hidden, indexes shifted past them. Not thread-safe, like the statement.
 */
final class ShiftedParameterMetaData implements ParameterMetaData {

	private final ParameterMetaData combined;

	/** @param combined the metadata of {@code beginStatement; sql} */
	ShiftedParameterMetaData(ParameterMetaData combined) {
		this.combined = combined;
	}

	@Override
	public int getParameterCount() throws SQLException {
		return this.combined.getParameterCount() - FenceBegin.BEGIN_PARAMETERS;
	}

	@Override
	public int isNullable(int param) throws SQLException {
		return this.combined.isNullable(param + FenceBegin.BEGIN_PARAMETERS);
	}

	@Override
	public boolean isSigned(int param) throws SQLException {
		return this.combined.isSigned(param + FenceBegin.BEGIN_PARAMETERS);
	}

	@Override
	public int getPrecision(int param) throws SQLException {
		return this.combined.getPrecision(param + FenceBegin.BEGIN_PARAMETERS);
	}

	@Override
	public int getScale(int param) throws SQLException {
		return this.combined.getScale(param + FenceBegin.BEGIN_PARAMETERS);
	}

	@Override
	public int getParameterType(int param) throws SQLException {
		return this.combined.getParameterType(param + FenceBegin.BEGIN_PARAMETERS);
	}

	@Override
	public String getParameterTypeName(int param) throws SQLException {
		return this.combined.getParameterTypeName(param + FenceBegin.BEGIN_PARAMETERS);
	}

	@Override
	public String getParameterClassName(int param) throws SQLException {
		return this.combined.getParameterClassName(param + FenceBegin.BEGIN_PARAMETERS);
	}

	@Override
	public int getParameterMode(int param) throws SQLException {
		return this.combined.getParameterMode(param + FenceBegin.BEGIN_PARAMETERS);
	}

	@Override
	public <T> T unwrap(Class<T> iface) throws SQLException {
		return this.combined.unwrap(iface);
	}

	@Override
	public boolean isWrapperFor(Class<?> iface) throws SQLException {
		return this.combined.isWrapperFor(iface);
	}

}
