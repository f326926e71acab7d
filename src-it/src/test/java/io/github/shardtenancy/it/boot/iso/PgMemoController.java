package io.github.shardtenancy.it.boot.iso;

import java.util.UUID;

import io.github.shardtenancy.TenantContext;
import io.github.shardtenancy.TenantSwitchedException;
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
 * id again as another tenant, in the same request, by one of several paths. Answers in plain text.
 */
@RestController
public class PgMemoController {

	@PersistenceContext
	private EntityManager entityManager;

	private final PgMemoRepository memos;

	public PgMemoController(PgMemoRepository memos) {
		this.memos = memos;
	}

	@GetMapping("/memos/{id}/as/{other}")
	public String readThenReadAs(@PathVariable UUID id, @PathVariable String other, @RequestParam String via)
			throws Exception {
		PgMemo first = this.memos.findById(id).orElseThrow();
		PgMemo second = TenantContext.callAs(other, () -> switch (via) {
			case "find" -> this.entityManager.find(PgMemo.class, id);
			case "reference" -> {
				PgMemo reference = this.entityManager.getReference(PgMemo.class, id);
				reference.getTitle();
				yield reference;
			}
			case "repository" -> this.memos.findById(id).orElse(null);
			case "query" -> this.entityManager.createQuery("select m from PgMemo m where m.id = :id", PgMemo.class)
				.setParameter("id", id)
				.getResultStream()
				.findFirst()
				.orElse(null);
			default -> throw new IllegalArgumentException(via);
		});
		return first.getTitle() + " | " + (second != null ? second.getTitle() + " of " + second.getTenantId() : "none");
	}

	@ExceptionHandler(Exception.class)
	public ResponseEntity<String> failed(Exception ex) {
		for (Throwable t = ex; t != null; t = t.getCause()) {
			if (t instanceof TenantSwitchedException) {
				return ResponseEntity.status(HttpStatus.CONFLICT).body(t.getClass().getSimpleName() + ": "
						+ t.getMessage());
			}
		}
		return ResponseEntity.status(HttpStatus.INTERNAL_SERVER_ERROR).body(ex.toString());
	}

}
