-- The reference role as the current role finds it: whether it exists, whether the current role may create it, and
-- whether it is a superuser or skips row-level security (it must not).
-- Parameter: the role's name (text).
SELECT r.rolname IS NOT NULL, me.rolsuper OR me.rolcreaterole, coalesce(r.rolsuper OR r.rolbypassrls, false)
FROM pg_roles me LEFT JOIN pg_roles r ON r.rolname = ?
WHERE me.rolname = current_user
