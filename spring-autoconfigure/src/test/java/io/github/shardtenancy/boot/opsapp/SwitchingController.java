package io.github.shardtenancy.boot.opsapp;

import java.util.Map;

import io.github.shardtenancy.ShardTenancyException;
import io.github.shardtenancy.TenantContext;
import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * A controller that does what open session in view makes dangerous: it reads as the request's tenant, then switches
 * to another tenant in the same request and writes.
 */
@RestController
public class SwitchingController {

	private final AuditService audit;

	public SwitchingController(AuditService audit) {
		this.audit = audit;
	}

	@PostMapping("/switch-to/{other}")
	public Map<String, Object> readThenWriteAs(@PathVariable String other) {
		long seen = this.audit.count();
		try (TenantContext.Scope scope = TenantContext.bind(other)) {
			this.audit.record("switched from " + scope.tenantId());
		}
		return Map.of("read", seen);
	}

	@PostMapping("/write-as/{tenant}")
	public Map<String, Object> writeAs(@PathVariable String tenant) {
		TenantContext.runAs(tenant, () -> this.audit.record("written as " + tenant));
		return Map.of("written", tenant);
	}

	@ExceptionHandler(ShardTenancyException.class)
	public ResponseEntity<Map<String, String>> refused(ShardTenancyException ex) {
		return ResponseEntity.status(HttpStatus.CONFLICT)
			.body(Map.of("error", ex.getClass().getSimpleName(), "message", ex.getMessage()));
	}

}
