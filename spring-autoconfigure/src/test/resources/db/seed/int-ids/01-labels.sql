-- Integer ids: each intId placeholder with a table is a shard-safe Integer id of that table's counter, the same for
-- the same table and name within one seed; without a table, of the default counter (int_ref below). The names of
-- each counter and of the Long id placeholders are apart (long_ref and int_ref are other ids than the label's).
INSERT INTO label (id, tenant_id, name, long_ref, int_ref)
	VALUES (${intId:label:urgent}, '${tenant}', 'Urgent', ${id:urgent}, ${intId:urgent});
INSERT INTO label (id, tenant_id, name, long_ref, int_ref)
	VALUES (${intId:label:later}, '${tenant}', 'Later', ${id:urgent}, ${intId:urgent});
INSERT INTO tag (id, tenant_id, label_id, title) VALUES (${intId:tag:t1}, '${tenant}', ${intId:label:urgent}, 'Call back');
INSERT INTO tag (id, tenant_id, label_id, title) VALUES (${intId:TAG:t2}, '${tenant}', ${intId:label:urgent}, 'Pay');
