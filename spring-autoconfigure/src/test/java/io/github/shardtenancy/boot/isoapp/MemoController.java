package io.github.shardtenancy.boot.isoapp;

import java.util.Map;
import java.util.UUID;

import io.github.shardtenancy.TenantContext;
import jakarta.persistence.EntityManager;
import jakarta.persistence.PersistenceContext;
import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

/**
 * Reads a memo as the request's tenant (open session in view keeps it in the request's session), then reads the same
 * id again as another tenant, in the same request, by one of several paths.
 */
@RestController
public class MemoController {

	@PersistenceContext
	private EntityManager entityManager;

	private final MemoRepository memos;

	public MemoController(MemoRepository memos) {
		this.memos = memos;
	}

	@GetMapping("/memos/{id}/as/{other}")
	public Map<String, Object> readThenReadAs(@PathVariable UUID id, @PathVariable String other,
			@RequestParam String via) throws Exception {
		Memo first = this.memos.findById(id).orElseThrow();
		Memo second = TenantContext.callAs(other, () -> switch (via) {
			case "find" -> this.entityManager.find(Memo.class, id);
			case "reference" -> {
				Memo reference = this.entityManager.getReference(Memo.class, id);
				reference.getTitle();
				yield reference;
			}
			case "repository" -> this.memos.findById(id).orElse(null);
			case "query" -> this.entityManager.createQuery("select m from Memo m where m.id = :id", Memo.class)
				.setParameter("id", id)
				.getResultStream()
				.findFirst()
				.orElse(null);
			default -> throw new IllegalArgumentException(via);
		});
		return Map.of("first", first.getTitle(), "second",
				second != null ? second.getTitle() + " of " + second.getTenantId() : "none");
	}

	@ExceptionHandler(Exception.class)
	public ResponseEntity<Map<String, String>> failed(Exception ex) {
		for (Throwable t = ex; t != null; t = t.getCause()) {
			if (t instanceof io.github.shardtenancy.TenantSwitchedException) {
				return ResponseEntity.status(HttpStatus.CONFLICT)
					.body(Map.of("error", t.getClass().getSimpleName(), "message", t.getMessage()));
			}
		}
		return ResponseEntity.status(HttpStatus.INTERNAL_SERVER_ERROR)
			.body(Map.of("error", ex.getClass().getSimpleName(), "message", String.valueOf(ex.getMessage())));
	}

}
