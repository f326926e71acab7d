-- The tenant table of the dialect contract tests (DialectContractTests), as db/dialect-contract/contract.xml creates it.
CREATE TABLE contract_note (
  id BIGINT NOT NULL PRIMARY KEY,
  tenant_id VARCHAR(64) NOT NULL,
  body VARCHAR(200)
);
