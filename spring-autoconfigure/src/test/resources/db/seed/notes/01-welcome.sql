-- Runs once per new tenant, on its shard, with the tenant bound.
INSERT INTO note (id, tenant_id, title) VALUES (RANDOM_UUID(), '${tenant}', 'Welcome');
