package io.github.shardtenancy.internal.lifecycle;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.List;
import java.util.Objects;

import javax.sql.DataSource;

import io.github.shardtenancy.DirectoryEntry;
import io.github.shardtenancy.TenantContext;
import io.github.shardtenancy.TenantSeedException;
import io.github.shardtenancy.internal.directory.Directory;
import io.github.shardtenancy.internal.directory.DirectoryEvents;
import io.github.shardtenancy.spi.TenantSeeder;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs the {@link TenantSeeder}s of a tenant, at most once per tenant: in one directory transaction (which holds the
 * directory version row lock, so two seeds of a tenant never run at once) that checks that no {@code TENANT_SEEDED}
 * event is recorded for the tenant, runs every seeder in one transaction on the tenant's shard through the
 * tenant-routing {@code DataSource} with the tenant bound, commits it, and records {@code TENANT_SEEDED}. A seeder that
 * fails rolls the shard transaction back and nothing is recorded, so the seed can be run again. The one window left:
 * the shard transaction committed and the directory transaction then failed; that is reported as such
 * ({@link TenantSeedException#rolledBack()} false). Thread-safe.
 */
public final class TenantSeeding {

	/** The directory event kind recording a tenant's seed. */
	public static final String TENANT_SEEDED = "TENANT_SEEDED";

	private static final Logger log = LoggerFactory.getLogger(TenantSeeding.class);

	private final List<TenantSeeder> seeders;

	private final DataSource routing;

	private final Directory directory;

	private final String actor;

	/**
	 * @param seeders the seeders, run in this order; may be empty (then nothing is ever seeded or recorded)
	 * @param routing the tenant-routing {@code DataSource}
	 * @param directory the directory
	 * @param actor who acts, recorded in the history
	 */
	public TenantSeeding(List<TenantSeeder> seeders, DataSource routing, Directory directory, String actor) {
		this.seeders = List.copyOf(seeders);
		this.routing = Objects.requireNonNull(routing, "routing");
		this.directory = Objects.requireNonNull(directory, "directory");
		this.actor = Objects.requireNonNull(actor, "actor");
	}

	/**
	 * Seeds a tenant unless its seed is recorded.
	 * @param entry the tenant's ACTIVE entry
	 * @return whether it was seeded now (false: no seeders, or already seeded)
	 * @throws TenantSeedException if a seeder or the shard fails, or the seed cannot start (for example another
	 * tenant's shard connection is held on this thread), all rolled back; or the seed committed and could not be
	 * recorded
	 */
	public boolean seed(DirectoryEntry entry) {
		if (this.seeders.isEmpty()) {
			return false;
		}
		String tenantId = entry.tenantId();
		boolean[] committed = new boolean[1];
		try {
			return this.directory.transaction((c, version) -> {
				if (seeded(c, tenantId)) {
					return false;
				}
				runOnShard(entry);
				committed[0] = true;
				DirectoryEvents.record(c, version, TENANT_SEEDED, tenantId, null, entry.shardId(), this.actor);
				log.info("Seeded tenant '{}' on shard '{}' ({} seeders)", tenantId, entry.shardId(),
						this.seeders.size());
				return true;
			});
		}
		catch (TenantSeedException ex) {
			throw ex;
		}
		catch (RuntimeException ex) {
			if (committed[0]) {
				throw new TenantSeedException("Seed of tenant '" + tenantId + "' was committed on shard '"
						+ entry.shardId() + "' (directory version " + entry.version() + ") but could not be recorded "
						+ "in the directory: its rows are there, do not seed it again (" + ex.getMessage() + ")",
						tenantId, entry.shardId(), entry.version(), false, ex);
			}
			throw failed(entry, ex);
		}
	}

	private void runOnShard(DirectoryEntry entry) {
		try (TenantContext.Scope scope = TenantContext.bind(entry.tenantId());
				Connection connection = this.routing.getConnection()) {
			connection.setAutoCommit(false);
			try {
				for (TenantSeeder seeder : this.seeders) {
					seeder.seed(entry, connection);
				}
				connection.commit();
			}
			catch (SQLException | RuntimeException ex) {
				try {
					connection.rollback();
				}
				catch (SQLException rollback) {
					ex.addSuppressed(rollback);
				}
				throw failed(entry, ex);
			}
		}
		catch (SQLException ex) {
			throw failed(entry, ex);
		}
	}

	private static TenantSeedException failed(DirectoryEntry entry, Exception ex) {
		return new TenantSeedException("Seed of tenant '" + entry.tenantId() + "' on shard '" + entry.shardId()
				+ "' (directory version " + entry.version() + ") failed and was rolled back; the tenant exists "
				+ "without its seed data: fix the cause and call TenantAdmin.seed(\"" + entry.tenantId()
				+ "\"), or delete the tenant (" + ex.getMessage() + ")", entry.tenantId(), entry.shardId(),
				entry.version(), true, ex);
	}

	/**
	 * @param c a directory connection
	 * @param tenantId the tenant
	 * @return whether its seed is recorded
	 * @throws SQLException on a directory error
	 */
	static boolean seeded(Connection c, String tenantId) throws SQLException {
		try (PreparedStatement ps = c.prepareStatement(
				"SELECT 1 FROM shard_directory_event WHERE kind = ? AND subject = ?")) {
			ps.setString(1, TENANT_SEEDED);
			ps.setString(2, tenantId);
			try (ResultSet rs = ps.executeQuery()) {
				return rs.next();
			}
		}
	}

}
