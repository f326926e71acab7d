package io.github.shardtenancy.it.boot.iso;

import java.util.UUID;

import jakarta.persistence.EntityManager;
import jakarta.persistence.PersistenceContext;
import org.springframework.stereotype.Service;
import org.springframework.transaction.annotation.Propagation;
import org.springframework.transaction.annotation.Transactional;

/** A transaction of its own (REQUIRES_NEW), read-write at the default isolation. */
@Service
public class PgInnerMemoService {

	@PersistenceContext
	private EntityManager entityManager;

	@Transactional(propagation = Propagation.REQUIRES_NEW)
	public PgSeen writeAndSee(String title) {
		this.entityManager.persist(new PgMemo(UUID.randomUUID(), title));
		this.entityManager.flush();
		return PgSeen.of((Object[]) this.entityManager.createNativeQuery(PgSeen.QUERY).getSingleResult());
	}

}
