package io.github.shardtenancy.internal.jdbc;

import java.io.Reader;
import java.math.BigDecimal;
import java.net.URL;
import java.sql.Array;
import java.sql.Blob;
import java.sql.CallableStatement;
import java.sql.Clob;
import java.sql.Date;
import java.sql.NClob;
import java.sql.Ref;
import java.sql.RowId;
import java.sql.SQLException;
import java.sql.SQLType;
import java.sql.SQLXML;
import java.sql.Time;
import java.sql.Timestamp;
import java.util.Calendar;
import java.util.Map;

/**
 * A callable statement of a {@link FencedConnection}: checked when prepared, executed like a
 * {@link FencedPreparedStatement} (never with the fence begin, which runs before {@code prepareCall} returns), its
 * out parameters the driver's statement's own. Not thread-safe, like the statement.
 */
final class FencedCallableStatement extends NamedCallableParameters {

	FencedCallableStatement(FencedConnection connection, CallableStatement callable, String sql) {
		super(connection, callable, sql);
	}

	@Override
	public void registerOutParameter(int parameterIndex, int sqlType) throws SQLException {
		this.callable.registerOutParameter(parameterIndex, sqlType);
	}

	@Override
	public void registerOutParameter(int parameterIndex, int sqlType, int scale) throws SQLException {
		this.callable.registerOutParameter(parameterIndex, sqlType, scale);
	}

	@Override
	public boolean wasNull() throws SQLException {
		return this.callable.wasNull();
	}

	@Override
	public String getString(int parameterIndex) throws SQLException {
		return this.callable.getString(parameterIndex);
	}

	@Override
	public boolean getBoolean(int parameterIndex) throws SQLException {
		return this.callable.getBoolean(parameterIndex);
	}

	@Override
	public byte getByte(int parameterIndex) throws SQLException {
		return this.callable.getByte(parameterIndex);
	}

	@Override
	public short getShort(int parameterIndex) throws SQLException {
		return this.callable.getShort(parameterIndex);
	}

	@Override
	public int getInt(int parameterIndex) throws SQLException {
		return this.callable.getInt(parameterIndex);
	}

	@Override
	public long getLong(int parameterIndex) throws SQLException {
		return this.callable.getLong(parameterIndex);
	}

	@Override
	public float getFloat(int parameterIndex) throws SQLException {
		return this.callable.getFloat(parameterIndex);
	}

	@Override
	public double getDouble(int parameterIndex) throws SQLException {
		return this.callable.getDouble(parameterIndex);
	}

	@Deprecated
	@Override
	public BigDecimal getBigDecimal(int parameterIndex, int scale) throws SQLException {
		return this.callable.getBigDecimal(parameterIndex, scale);
	}

	@Override
	public byte[] getBytes(int parameterIndex) throws SQLException {
		return this.callable.getBytes(parameterIndex);
	}

	@Override
	public Date getDate(int parameterIndex) throws SQLException {
		return this.callable.getDate(parameterIndex);
	}

	@Override
	public Time getTime(int parameterIndex) throws SQLException {
		return this.callable.getTime(parameterIndex);
	}

	@Override
	public Timestamp getTimestamp(int parameterIndex) throws SQLException {
		return this.callable.getTimestamp(parameterIndex);
	}

	@Override
	public Object getObject(int parameterIndex) throws SQLException {
		return this.callable.getObject(parameterIndex);
	}

	@Override
	public BigDecimal getBigDecimal(int parameterIndex) throws SQLException {
		return this.callable.getBigDecimal(parameterIndex);
	}

	@Override
	public Object getObject(int parameterIndex, Map<String,Class<?>> map) throws SQLException {
		return this.callable.getObject(parameterIndex, map);
	}

	@Override
	public Ref getRef(int parameterIndex) throws SQLException {
		return this.callable.getRef(parameterIndex);
	}

	@Override
	public Blob getBlob(int parameterIndex) throws SQLException {
		return this.callable.getBlob(parameterIndex);
	}

	@Override
	public Clob getClob(int parameterIndex) throws SQLException {
		return this.callable.getClob(parameterIndex);
	}

	@Override
	public Array getArray(int parameterIndex) throws SQLException {
		return this.callable.getArray(parameterIndex);
	}

	@Override
	public Date getDate(int parameterIndex, Calendar cal) throws SQLException {
		return this.callable.getDate(parameterIndex, cal);
	}

	@Override
	public Time getTime(int parameterIndex, Calendar cal) throws SQLException {
		return this.callable.getTime(parameterIndex, cal);
	}

	@Override
	public Timestamp getTimestamp(int parameterIndex, Calendar cal) throws SQLException {
		return this.callable.getTimestamp(parameterIndex, cal);
	}

	@Override
	public void registerOutParameter(int parameterIndex, int sqlType, String typeName) throws SQLException {
		this.callable.registerOutParameter(parameterIndex, sqlType, typeName);
	}

	@Override
	public URL getURL(int parameterIndex) throws SQLException {
		return this.callable.getURL(parameterIndex);
	}

	@Override
	public RowId getRowId(int parameterIndex) throws SQLException {
		return this.callable.getRowId(parameterIndex);
	}

	@Override
	public NClob getNClob(int parameterIndex) throws SQLException {
		return this.callable.getNClob(parameterIndex);
	}

	@Override
	public SQLXML getSQLXML(int parameterIndex) throws SQLException {
		return this.callable.getSQLXML(parameterIndex);
	}

	@Override
	public String getNString(int parameterIndex) throws SQLException {
		return this.callable.getNString(parameterIndex);
	}

	@Override
	public Reader getNCharacterStream(int parameterIndex) throws SQLException {
		return this.callable.getNCharacterStream(parameterIndex);
	}

	@Override
	public Reader getCharacterStream(int parameterIndex) throws SQLException {
		return this.callable.getCharacterStream(parameterIndex);
	}

	@Override
	public <T> T getObject(int parameterIndex, Class<T> type) throws SQLException {
		return this.callable.getObject(parameterIndex, type);
	}

	@Override
	public void registerOutParameter(int parameterIndex, SQLType sqlType) throws SQLException {
		this.callable.registerOutParameter(parameterIndex, sqlType);
	}

	@Override
	public void registerOutParameter(int parameterIndex, SQLType sqlType, int scale) throws SQLException {
		this.callable.registerOutParameter(parameterIndex, sqlType, scale);
	}

	@Override
	public void registerOutParameter(int parameterIndex, SQLType sqlType, String typeName) throws SQLException {
		this.callable.registerOutParameter(parameterIndex, sqlType, typeName);
	}

}
