package io.github.shardtenancy.boot.isoapp;

import java.util.UUID;

import org.springframework.data.jpa.repository.JpaRepository;

/** The memos' Spring Data repository. */
public interface MemoRepository extends JpaRepository<Memo, UUID> {

}
