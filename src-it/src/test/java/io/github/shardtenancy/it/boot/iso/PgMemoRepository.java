package io.github.shardtenancy.it.boot.iso;

import java.util.UUID;

import org.springframework.data.jpa.repository.JpaRepository;

/** The memos' Spring Data repository. */
public interface PgMemoRepository extends JpaRepository<PgMemo, UUID> {

}
