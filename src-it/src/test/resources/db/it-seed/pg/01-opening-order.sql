-- A new tenant's opening order, on its shard, with the tenant bound (the fence checks the write).
INSERT INTO purchase_order (id, tenant_id, customer, amount) VALUES (gen_random_uuid(), '${tenant}', 'opening on ${shard}', 0);
