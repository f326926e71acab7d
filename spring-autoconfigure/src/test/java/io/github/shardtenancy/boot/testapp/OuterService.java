package io.github.shardtenancy.boot.testapp;

import java.util.concurrent.atomic.AtomicInteger;

import org.springframework.stereotype.Service;
import org.springframework.transaction.annotation.Transactional;

/** Calls {@link InnerService} inside its own transaction (REQUIRED: the inner call joins it). */
@Service
public class OuterService {

	private final InnerService inner;

	private final AtomicInteger runs = new AtomicInteger();

	public OuterService(InnerService inner) {
		this.inner = inner;
	}

	@Transactional
	public Note createThroughInner(String title) {
		this.runs.incrementAndGet();
		return this.inner.create(title);
	}

	@Transactional
	public Note createThroughInnerAfter(String title, Runnable beforeWrite) {
		this.runs.incrementAndGet();
		return this.inner.createAfter(title, beforeWrite);
	}

	public int runs() {
		return this.runs.get();
	}

	public void reset() {
		this.runs.set(0);
	}

}
