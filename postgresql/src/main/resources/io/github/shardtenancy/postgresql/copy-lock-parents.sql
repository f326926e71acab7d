-- After a COPY without foreign-key triggers: locks the copied rows' referenced rows as the foreign key's own check
-- does (FOR KEY SHARE), waiting for a transaction that is deleting one; {rows} is the copier's SELECT of the
-- tenant's rows, run on the target.
SELECT count(*) FROM (SELECT 1 FROM {parent} p WHERE ({parentColumns}) IN (SELECT {childColumns} FROM ({rows}) c)
  FOR KEY SHARE OF p) locked
