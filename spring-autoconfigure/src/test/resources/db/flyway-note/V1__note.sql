-- The note table of the test application (as db/test-shard.xml creates it for Liquibase).
CREATE TABLE note (
  id UUID NOT NULL PRIMARY KEY,
  tenant_id VARCHAR(64) NOT NULL,
  title VARCHAR(200) NOT NULL,
  CONSTRAINT uk_note_tenant_title UNIQUE (tenant_id, title)
);
