INSERT INTO item (id, tenant_id, folder_id, title) VALUES (${id:first}, '${tenant}', ${id:inbox}, 'First');
INSERT INTO item (id, tenant_id, folder_id, title) VALUES (${id:second}, '${tenant}', ${id:inbox}, 'Second');
INSERT INTO item (id, tenant_id, folder_id, title) VALUES (${id:old}, '${tenant}', ${id:archive}, 'Old');
