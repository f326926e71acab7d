-- Writes another tenant's row: refused by the fence's write check, which rolls back the whole seed.
INSERT INTO purchase_order (id, tenant_id, customer, amount) VALUES (gen_random_uuid(), 'someone-else', 'stolen', 0);
