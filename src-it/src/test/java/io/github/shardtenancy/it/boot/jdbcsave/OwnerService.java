package io.github.shardtenancy.it.boot.jdbcsave;

import java.util.concurrent.atomic.LongAdder;

import org.springframework.stereotype.Service;
import org.springframework.transaction.annotation.Transactional;

/** Transactional registration of owners, each call retried as a whole by the automatic retry; counts the attempts. */
@Service
public class OwnerService {

	private final OwnerRepository owners;

	private final LongAdder attempts = new LongAdder();

	OwnerService(OwnerRepository owners) {
		this.owners = owners;
	}

	/** Saves the owner with {@link OwnerRepository#save} (the lossy shape). */
	@Transactional
	public void register(Owner owner) {
		this.attempts.increment();
		this.owners.save(owner);
	}

	/** Saves the owner with {@link OwnerRepository#saveWithStatement} (the lossy shape on a plain statement). */
	@Transactional
	public void registerWithStatement(Owner owner) {
		this.attempts.increment();
		this.owners.saveWithStatement(owner);
	}

	/** Saves the owner with {@link OwnerRepository#saveAssigningId} (the recipe). */
	@Transactional
	public void registerAssigningId(Owner owner) {
		this.attempts.increment();
		this.owners.saveAssigningId(owner);
	}

	/** @return the attempts of both methods so far */
	public long attempts() {
		return this.attempts.sum();
	}

}
