package io.github.shardtenancy.it.boot.jpa;

import jakarta.persistence.Entity;
import jakarta.persistence.GeneratedValue;
import jakarta.persistence.GenerationType;
import jakarta.persistence.Id;
import jakarta.persistence.SequenceGenerator;
import jakarta.persistence.Table;
import org.hibernate.annotations.TenantId;

/** A ticket: a SEQUENCE id fetched one value at a time, so that each new ticket starts with {@code select nextval}. */
@Entity
@Table(name = "pg_ticket")
public class Ticket {

	@Id
	@GeneratedValue(strategy = GenerationType.SEQUENCE, generator = "ticket_ids")
	@SequenceGenerator(name = "ticket_ids", sequenceName = "pg_ticket_seq", allocationSize = 1)
	private Long id;

	@TenantId
	private String tenantId;

	private String title;

	private int priority;

	protected Ticket() {
	}

	/**
	 * @param title the title
	 * @param priority the priority
	 */
	public Ticket(String title, int priority) {
		this.title = title;
		this.priority = priority;
	}

	public Long getId() {
		return this.id;
	}

	public String getTenantId() {
		return this.tenantId;
	}

	public String getTitle() {
		return this.title;
	}

	public void setTitle(String title) {
		this.title = title;
	}

	public int getPriority() {
		return this.priority;
	}

}
