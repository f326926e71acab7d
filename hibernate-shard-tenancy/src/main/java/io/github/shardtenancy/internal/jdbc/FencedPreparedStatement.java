package io.github.shardtenancy.internal.jdbc;

import java.io.InputStream;
import java.io.Reader;
import java.math.BigDecimal;
import java.net.URL;
import java.sql.Array;
import java.sql.Blob;
import java.sql.Clob;
import java.sql.Date;
import java.sql.NClob;
import java.sql.ParameterMetaData;
import java.sql.PreparedStatement;
import java.sql.Ref;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.RowId;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.sql.SQLType;
import java.sql.SQLXML;
import java.sql.Time;
import java.sql.Timestamp;
import java.util.Calendar;

import org.jspecify.annotations.Nullable;

/**
 * A prepared statement of a {@link FencedConnection}. Its SQL was checked once, when it was prepared, and is read
 * (does it only read?) at most once. A query prepared with the fence begin ({@code beginStatement; sql}, see
 * {@link TenantConnection}) shifts parameter indexes past the begin's, answers with the query's own result and
 * parameter metadata, and cannot be batched. Not thread-safe, like the statement.
 */
class FencedPreparedStatement extends FencedStatement implements PreparedStatement {

	private final PreparedStatement prepared;

	private final String sql;

	/** Whether the statement is {@code beginStatement; sql}. */
	private final boolean withBegin;

	/** What parameter indexes are shifted by: the begin's parameters, or none. */
	private final int shift;

	/** Whether {@link #sql} only reads, once asked. */
	private @Nullable Boolean read;

	FencedPreparedStatement(FencedConnection connection, PreparedStatement prepared, String sql, boolean withBegin) {
		super(connection, prepared);
		this.prepared = prepared;
		this.sql = sql;
		this.withBegin = withBegin;
		this.shift = withBegin ? FenceBegin.BEGIN_PARAMETERS : 0;
	}

	@Override
	final boolean isRead(String sql) {
		if (sql != this.sql) {
			return super.isRead(sql);
		}
		Boolean r = this.read;
		if (r == null) {
			r = SqlShape.of(sql).read;
			this.read = r;
		}
		return r;
	}

	@Override
	final void checkBatch(String method) throws SQLException {
		if (this.withBegin) {
			throw new SQLFeatureNotSupportedException("A query sent with the fence begin cannot be batched: " + method);
		}
	}

	// The forms below run the execution directly (no lambda) on a connection without auto-commit emulation, the path
	// of every statement Hibernate runs; the result of a query reports no rows written.

	@Override
	public ResultSet executeQuery() throws SQLException {
		if (!this.withBegin) {
			if (runsDirectly(false)) {
				return this.prepared.executeQuery();
			}
			return run(this.sql, false, this.prepared::executeQuery);
		}
		if (runsDirectly(true)) {
			return queryWithBegin();
		}
		return run(this.sql, true, this::queryWithBegin);
	}

	private ResultSet queryWithBegin() throws SQLException {
		if (!this.connection.begin().executeWithQuery(this.prepared)) {
			throw new SQLException("No results were returned by the query", "02000");
		}
		return this.prepared.getResultSet();
	}

	@Override
	public boolean execute() throws SQLException {
		if (!this.withBegin) {
			return run(this.sql, false, this.prepared::execute);
		}
		return run(this.sql, true, () -> this.connection.begin().executeWithQuery(this.prepared));
	}

	@Override
	public int executeUpdate() throws SQLException {
		if (!this.withBegin) {
			writing(this.sql);
			if (runsDirectly(false)) {
				int count = this.prepared.executeUpdate();
				executedDirectly(this.sql, count);
				return count;
			}
			return run(this.sql, false, this.prepared::executeUpdate);
		}
		return run(this.sql, true, () -> {
			this.connection.begin().executeWithQuery(this.prepared);
			return this.prepared.getUpdateCount();
		});
	}

	@Override
	public long executeLargeUpdate() throws SQLException {
		if (!this.withBegin) {
			return run(this.sql, false, this.prepared::executeLargeUpdate);
		}
		return run(this.sql, true, () -> {
			this.connection.begin().executeWithQuery(this.prepared);
			return this.prepared.getLargeUpdateCount();
		});
	}

	@Override
	public void addBatch() throws SQLException {
		checkBatch("addBatch");
		this.prepared.addBatch();
	}

	@Override
	public void clearParameters() throws SQLException {
		this.prepared.clearParameters();
		if (this.withBegin) {
			this.connection.begin().bind(this.prepared);
		}
	}

	@Override
	public ParameterMetaData getParameterMetaData() throws SQLException {
		ParameterMetaData metaData = this.prepared.getParameterMetaData();
		return this.withBegin ? new ShiftedParameterMetaData(metaData) : metaData;
	}

	// Everything else is the driver's statement's own, parameter indexes shifted.

	@Override
	public void setNull(int parameterIndex, int sqlType) throws SQLException {
		this.prepared.setNull(parameterIndex + this.shift, sqlType);
	}

	@Override
	public void setBoolean(int parameterIndex, boolean x) throws SQLException {
		this.prepared.setBoolean(parameterIndex + this.shift, x);
	}

	@Override
	public void setByte(int parameterIndex, byte x) throws SQLException {
		this.prepared.setByte(parameterIndex + this.shift, x);
	}

	@Override
	public void setShort(int parameterIndex, short x) throws SQLException {
		this.prepared.setShort(parameterIndex + this.shift, x);
	}

	@Override
	public void setInt(int parameterIndex, int x) throws SQLException {
		this.prepared.setInt(parameterIndex + this.shift, x);
	}

	@Override
	public void setLong(int parameterIndex, long x) throws SQLException {
		this.prepared.setLong(parameterIndex + this.shift, x);
	}

	@Override
	public void setFloat(int parameterIndex, float x) throws SQLException {
		this.prepared.setFloat(parameterIndex + this.shift, x);
	}

	@Override
	public void setDouble(int parameterIndex, double x) throws SQLException {
		this.prepared.setDouble(parameterIndex + this.shift, x);
	}

	@Override
	public void setBigDecimal(int parameterIndex, BigDecimal x) throws SQLException {
		this.prepared.setBigDecimal(parameterIndex + this.shift, x);
	}

	@Override
	public void setString(int parameterIndex, String x) throws SQLException {
		this.prepared.setString(parameterIndex + this.shift, x);
	}

	@Override
	public void setBytes(int parameterIndex, byte[] x) throws SQLException {
		this.prepared.setBytes(parameterIndex + this.shift, x);
	}

	@Override
	public void setDate(int parameterIndex, Date x) throws SQLException {
		this.prepared.setDate(parameterIndex + this.shift, x);
	}

	@Override
	public void setTime(int parameterIndex, Time x) throws SQLException {
		this.prepared.setTime(parameterIndex + this.shift, x);
	}

	@Override
	public void setTimestamp(int parameterIndex, Timestamp x) throws SQLException {
		this.prepared.setTimestamp(parameterIndex + this.shift, x);
	}

	@Override
	public void setAsciiStream(int parameterIndex, InputStream x, int length) throws SQLException {
		this.prepared.setAsciiStream(parameterIndex + this.shift, x, length);
	}

	@Deprecated
	@Override
	public void setUnicodeStream(int parameterIndex, InputStream x, int length) throws SQLException {
		this.prepared.setUnicodeStream(parameterIndex + this.shift, x, length);
	}

	@Override
	public void setBinaryStream(int parameterIndex, InputStream x, int length) throws SQLException {
		this.prepared.setBinaryStream(parameterIndex + this.shift, x, length);
	}

	@Override
	public void setObject(int parameterIndex, Object x, int targetSqlType) throws SQLException {
		this.prepared.setObject(parameterIndex + this.shift, x, targetSqlType);
	}

	@Override
	public void setObject(int parameterIndex, Object x) throws SQLException {
		this.prepared.setObject(parameterIndex + this.shift, x);
	}

	@Override
	public void setCharacterStream(int parameterIndex, Reader reader, int length) throws SQLException {
		this.prepared.setCharacterStream(parameterIndex + this.shift, reader, length);
	}

	@Override
	public void setRef(int parameterIndex, Ref x) throws SQLException {
		this.prepared.setRef(parameterIndex + this.shift, x);
	}

	@Override
	public void setBlob(int parameterIndex, Blob x) throws SQLException {
		this.prepared.setBlob(parameterIndex + this.shift, x);
	}

	@Override
	public void setClob(int parameterIndex, Clob x) throws SQLException {
		this.prepared.setClob(parameterIndex + this.shift, x);
	}

	@Override
	public void setArray(int parameterIndex, Array x) throws SQLException {
		this.prepared.setArray(parameterIndex + this.shift, x);
	}

	@Override
	public ResultSetMetaData getMetaData() throws SQLException {
		return this.prepared.getMetaData();
	}

	@Override
	public void setDate(int parameterIndex, Date x, Calendar cal) throws SQLException {
		this.prepared.setDate(parameterIndex + this.shift, x, cal);
	}

	@Override
	public void setTime(int parameterIndex, Time x, Calendar cal) throws SQLException {
		this.prepared.setTime(parameterIndex + this.shift, x, cal);
	}

	@Override
	public void setTimestamp(int parameterIndex, Timestamp x, Calendar cal) throws SQLException {
		this.prepared.setTimestamp(parameterIndex + this.shift, x, cal);
	}

	@Override
	public void setNull(int parameterIndex, int sqlType, String typeName) throws SQLException {
		this.prepared.setNull(parameterIndex + this.shift, sqlType, typeName);
	}

	@Override
	public void setURL(int parameterIndex, URL x) throws SQLException {
		this.prepared.setURL(parameterIndex + this.shift, x);
	}

	@Override
	public void setRowId(int parameterIndex, RowId x) throws SQLException {
		this.prepared.setRowId(parameterIndex + this.shift, x);
	}

	@Override
	public void setNString(int parameterIndex, String value) throws SQLException {
		this.prepared.setNString(parameterIndex + this.shift, value);
	}

	@Override
	public void setNCharacterStream(int parameterIndex, Reader value, long length) throws SQLException {
		this.prepared.setNCharacterStream(parameterIndex + this.shift, value, length);
	}

	@Override
	public void setNClob(int parameterIndex, NClob value) throws SQLException {
		this.prepared.setNClob(parameterIndex + this.shift, value);
	}

	@Override
	public void setClob(int parameterIndex, Reader reader, long length) throws SQLException {
		this.prepared.setClob(parameterIndex + this.shift, reader, length);
	}

	@Override
	public void setBlob(int parameterIndex, InputStream inputStream, long length) throws SQLException {
		this.prepared.setBlob(parameterIndex + this.shift, inputStream, length);
	}

	@Override
	public void setNClob(int parameterIndex, Reader reader, long length) throws SQLException {
		this.prepared.setNClob(parameterIndex + this.shift, reader, length);
	}

	@Override
	public void setSQLXML(int parameterIndex, SQLXML xmlObject) throws SQLException {
		this.prepared.setSQLXML(parameterIndex + this.shift, xmlObject);
	}

	@Override
	public void setObject(int parameterIndex, Object x, int targetSqlType, int scaleOrLength) throws SQLException {
		this.prepared.setObject(parameterIndex + this.shift, x, targetSqlType, scaleOrLength);
	}

	@Override
	public void setAsciiStream(int parameterIndex, InputStream x, long length) throws SQLException {
		this.prepared.setAsciiStream(parameterIndex + this.shift, x, length);
	}

	@Override
	public void setBinaryStream(int parameterIndex, InputStream x, long length) throws SQLException {
		this.prepared.setBinaryStream(parameterIndex + this.shift, x, length);
	}

	@Override
	public void setCharacterStream(int parameterIndex, Reader reader, long length) throws SQLException {
		this.prepared.setCharacterStream(parameterIndex + this.shift, reader, length);
	}

	@Override
	public void setAsciiStream(int parameterIndex, InputStream x) throws SQLException {
		this.prepared.setAsciiStream(parameterIndex + this.shift, x);
	}

	@Override
	public void setBinaryStream(int parameterIndex, InputStream x) throws SQLException {
		this.prepared.setBinaryStream(parameterIndex + this.shift, x);
	}

	@Override
	public void setCharacterStream(int parameterIndex, Reader reader) throws SQLException {
		this.prepared.setCharacterStream(parameterIndex + this.shift, reader);
	}

	@Override
	public void setNCharacterStream(int parameterIndex, Reader value) throws SQLException {
		this.prepared.setNCharacterStream(parameterIndex + this.shift, value);
	}

	@Override
	public void setClob(int parameterIndex, Reader reader) throws SQLException {
		this.prepared.setClob(parameterIndex + this.shift, reader);
	}

	@Override
	public void setBlob(int parameterIndex, InputStream inputStream) throws SQLException {
		this.prepared.setBlob(parameterIndex + this.shift, inputStream);
	}

	@Override
	public void setNClob(int parameterIndex, Reader reader) throws SQLException {
		this.prepared.setNClob(parameterIndex + this.shift, reader);
	}

	@Override
	public void setObject(int parameterIndex, Object x, SQLType targetSqlType, int scaleOrLength) throws SQLException {
		this.prepared.setObject(parameterIndex + this.shift, x, targetSqlType, scaleOrLength);
	}

	@Override
	public void setObject(int parameterIndex, Object x, SQLType targetSqlType) throws SQLException {
		this.prepared.setObject(parameterIndex + this.shift, x, targetSqlType);
	}

}
