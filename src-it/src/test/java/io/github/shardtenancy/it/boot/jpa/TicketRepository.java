package io.github.shardtenancy.it.boot.jpa;

import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;

import jakarta.persistence.LockModeType;
import jakarta.persistence.QueryHint;
import org.hibernate.jpa.HibernateHints;
import org.springframework.data.domain.Page;
import org.springframework.data.domain.Pageable;
import org.springframework.data.jpa.repository.JpaRepository;
import org.springframework.data.jpa.repository.Lock;
import org.springframework.data.jpa.repository.Modifying;
import org.springframework.data.jpa.repository.Query;
import org.springframework.data.jpa.repository.QueryHints;
import org.springframework.data.repository.query.Param;

/** Spring Data repository of tickets: one method per way Spring Data starts a query. */
public interface TicketRepository extends JpaRepository<Ticket, Long> {

	/** A derived query. */
	List<Ticket> findByTitleOrderById(String title);

	/** A JPQL query with a named parameter. */
	@Query("select t from Ticket t where t.priority >= :min order by t.priority, t.id")
	List<Ticket> findUrgent(@Param("min") int min);

	/** A derived query with a page: a select with limit and offset, then a count query. */
	Page<Ticket> findByPriorityGreaterThanEqual(int min, Pageable pageable);

	/** A stream read in batches of two rows (a server-side cursor on PostgreSQL). */
	@QueryHints(@QueryHint(name = HibernateHints.HINT_FETCH_SIZE, value = "2"))
	@Query("select t from Ticket t order by t.id")
	Stream<Ticket> streamAll();

	/** {@code select ... for no key update}: a pessimistic write lock. */
	@Lock(LockModeType.PESSIMISTIC_WRITE)
	@Query("select t from Ticket t where t.id = :id")
	Optional<Ticket> findLockedById(@Param("id") Long id);

	/** A pessimistic write lock with a lock timeout (ms), which Hibernate sets on the connection around the query. */
	@Lock(LockModeType.PESSIMISTIC_WRITE)
	@QueryHints(@QueryHint(name = "jakarta.persistence.lock.timeout", value = "3000"))
	@Query("select t from Ticket t where t.id = :id")
	Optional<Ticket> findLockedWithTimeoutById(@Param("id") Long id);

	/**
	 * A native query that filters by the session's tenant variable (so it sees rows only if the fence begin ran before
	 * it, in its transaction) and has a {@code ;} inside a string literal.
	 */
	@Query(value = "select * from pg_ticket where tenant_id = current_setting('shard_tenancy.tenant', true) "
			+ "and title <> 'not;this' order by id", nativeQuery = true)
	List<Ticket> findBySessionTenantWithSemicolonLiteral();

	/** A JPQL bulk update (Hibernate adds the tenant restriction). */
	@Modifying
	@Query("update Ticket t set t.priority = t.priority + :by")
	int bumpAll(@Param("by") int by);

	/** A native update by id, which Hibernate does not restrict to the tenant. */
	@Modifying
	@Query(value = "update pg_ticket set title = :title where id = :id", nativeQuery = true)
	int retitleNative(@Param("id") long id, @Param("title") String title);

	/** A native update moving a row to another tenant. */
	@Modifying
	@Query(value = "update pg_ticket set tenant_id = :tenant where id = :id", nativeQuery = true)
	int reassignNative(@Param("id") long id, @Param("tenant") String tenant);

	/** A native insert with an explicit tenant. */
	@Modifying
	@Query(value = "insert into pg_ticket (id, tenant_id, title, priority) values (nextval('pg_ticket_seq'), :tenant, :title, 1)",
			nativeQuery = true)
	int insertNative(@Param("tenant") String tenant, @Param("title") String title);

	/** The same native query without a {@code ;}: the statement the begin travels with. */
	@Query(value = "select * from pg_ticket where tenant_id = current_setting('shard_tenancy.tenant', true) order by id",
			nativeQuery = true)
	List<Ticket> findBySessionTenant();

}
