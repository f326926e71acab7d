INSERT INTO note (id, tenant_id, title) VALUES (RANDOM_UUID(), '${tenant}', 'Created on ${shard}');
