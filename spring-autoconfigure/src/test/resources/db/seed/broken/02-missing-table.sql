INSERT INTO no_such_table (id) VALUES (1);
