-- Integer ids: each intId placeholder is a shard-safe Integer id, the same for the same name within one seed; the
-- names of the Long id placeholders are apart (long_ref below is another id than the label's).
INSERT INTO label (id, tenant_id, name, long_ref) VALUES (${intId:urgent}, '${tenant}', 'Urgent', ${id:urgent});
INSERT INTO label (id, tenant_id, name, long_ref) VALUES (${intId:later}, '${tenant}', 'Later', ${id:urgent});
INSERT INTO tag (id, tenant_id, label_id, title) VALUES (${intId:t1}, '${tenant}', ${intId:urgent}, 'Call back');
INSERT INTO tag (id, tenant_id, label_id, title) VALUES (${intId:t2}, '${tenant}', ${intId:urgent}, 'Pay');
