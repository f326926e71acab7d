package io.github.shardtenancy.boot.isoapp;

import java.util.UUID;

import jakarta.persistence.EntityManager;
import jakarta.persistence.PersistenceContext;
import org.springframework.stereotype.Service;
import org.springframework.transaction.annotation.Propagation;
import org.springframework.transaction.annotation.Transactional;

/** A transaction of its own (REQUIRES_NEW), read-write at the default isolation. */
@Service
public class InnerMemoService {

	@PersistenceContext
	private EntityManager entityManager;

	@Transactional(propagation = Propagation.REQUIRES_NEW)
	public Seen writeAndSee(String title) {
		this.entityManager.persist(new Memo(UUID.randomUUID(), title));
		this.entityManager.flush();
		Object[] row = (Object[]) this.entityManager.createNativeQuery(MemoService.SEEN).getSingleResult();
		return new Seen(((Number) row[0]).intValue(), (String) row[1]);
	}

}
