-- H2's SNAPSHOT isolation: one snapshot of the whole database from the transaction's first read.
SET SESSION CHARACTERISTICS AS TRANSACTION ISOLATION LEVEL SNAPSHOT
