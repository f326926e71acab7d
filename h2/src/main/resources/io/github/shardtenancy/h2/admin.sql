-- Whether the current user is an H2 administrator (RUNSCRIPT, SCRIPT, file functions, any DDL).
SELECT IS_ADMIN FROM INFORMATION_SCHEMA.USERS WHERE USER_NAME = CURRENT_USER
