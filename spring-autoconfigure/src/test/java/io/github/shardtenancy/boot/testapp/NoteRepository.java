package io.github.shardtenancy.boot.testapp;

import java.util.UUID;

import org.springframework.data.jpa.repository.JpaRepository;

/** The Spring Data repository of the test domain; its proxy must be wrapped by the retry advisor. */
public interface NoteRepository extends JpaRepository<Note, UUID> {

}
