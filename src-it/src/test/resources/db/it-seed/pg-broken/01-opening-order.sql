INSERT INTO purchase_order (id, tenant_id, customer, amount) VALUES (gen_random_uuid(), '${tenant}', 'opening', 0);
