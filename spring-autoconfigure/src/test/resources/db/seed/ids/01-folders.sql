-- Long ids without a sequence: ${id:name} is a shard-safe id, the same for the same name within one seed.
INSERT INTO folder (id, tenant_id, name) VALUES (${id:inbox}, '${tenant}', 'Inbox');
INSERT INTO folder (id, tenant_id, name) VALUES (${id:archive}, '${tenant}', 'Archive');
