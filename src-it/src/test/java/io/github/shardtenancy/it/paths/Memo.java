package io.github.shardtenancy.it.paths;

import java.util.UUID;

import jakarta.persistence.Entity;
import jakarta.persistence.GeneratedValue;
import jakarta.persistence.GenerationType;
import jakarta.persistence.Id;
import jakarta.persistence.Table;
import org.hibernate.annotations.TenantId;

/** A memo: the one tenant entity of {@link PathsApplication}. */
@Entity
@Table(name = "paths_memo")
public class Memo {

	@Id
	@GeneratedValue(strategy = GenerationType.UUID)
	private UUID id;

	@TenantId
	private String tenantId;

	private String body;

	protected Memo() {
	}

	/** @param body the text */
	public Memo(String body) {
		this.body = body;
	}

	public UUID getId() {
		return this.id;
	}

	public String getBody() {
		return this.body;
	}

}
