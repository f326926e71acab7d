package io.github.shardtenancy.boot.taskapp;

import java.util.UUID;

import org.springframework.data.jpa.repository.JpaRepository;

/** The Spring Data repository of {@link TaskNote}. */
public interface TaskNoteRepository extends JpaRepository<TaskNote, UUID> {

	long countByText(String text);

}
