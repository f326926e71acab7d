-- Whether the server keeps prepared transactions: PREPARE TRANSACTION fails when max_prepared_transactions is 0
-- (https://www.postgresql.org/docs/current/runtime-config-resource.html#GUC-MAX-PREPARED-TRANSACTIONS).
SELECT current_setting('max_prepared_transactions')::int > 0
