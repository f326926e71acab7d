-- Whether the current role escapes row-level security: a superuser, or a role with BYPASSRLS.
SELECT rolname, rolsuper, rolbypassrls FROM pg_roles WHERE rolname = current_user
