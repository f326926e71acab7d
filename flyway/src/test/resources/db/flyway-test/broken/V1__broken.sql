CREATE TABLE no_such_syntax (
