package io.github.shardtenancy.it.security.rls;

import java.util.List;
import java.util.UUID;

import org.springframework.data.jpa.repository.JpaRepository;
import org.springframework.data.jpa.repository.Query;

/** Spring Data repository of notes, with native queries that have no tenant predicate. */
public interface RlsNoteRepository extends JpaRepository<RlsNote, UUID> {

	/** A native query without a tenant predicate. */
	@Query(value = "select * from pg_rls_note order by body", nativeQuery = true)
	List<RlsNote> findAllNative();

	/** A native count without a tenant predicate. */
	@Query(value = "select count(*) from pg_rls_note", nativeQuery = true)
	long countNative();

}
