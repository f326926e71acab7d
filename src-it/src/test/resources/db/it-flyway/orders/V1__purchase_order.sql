-- The integration tests' tenant table (as db/it-h2/orders.xml creates it for Liquibase), for the Flyway tests.
CREATE TABLE purchase_order (
  id UUID NOT NULL PRIMARY KEY,
  tenant_id VARCHAR(64) NOT NULL,
  customer VARCHAR(100) NOT NULL,
  amount BIGINT NOT NULL
);
