-- Every event is written, stamped published, and later pruned: each leaves dead row versions and
-- index entries behind, which the relay's claim reads past until VACUUM removes them. Autovacuum's
-- defaults visit a table once a fifth of it has changed, and from PostgreSQL 14 skip cleaning the
-- indexes when few of a large table's pages changed, which a week of published history makes
-- likely. Here: once a hundredth has changed (or been inserted), indexes always cleaned.
-- (Storage parameters only; they take effect where autovacuum runs.)
ALTER TABLE "outbox_events" SET (
  autovacuum_vacuum_scale_factor = 0.01,
  autovacuum_vacuum_insert_scale_factor = 0.01,
  autovacuum_analyze_scale_factor = 0.01,
  vacuum_index_cleanup = on
);
