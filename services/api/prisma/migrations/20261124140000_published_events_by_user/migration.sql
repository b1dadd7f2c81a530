-- An erasure deletes the published events that name the user, as author or as sender. Without
-- these it read the whole week of published history (every payload) inside the erasure's
-- transaction, which holds the user's suggestions locked and must end within 15 seconds: about
-- 0.65 s per 2 million events held in memory, far more read from disk, so a busy outbox would
-- make every erasure fail. Published rows only: an event is indexed once, when the relay stamps
-- it (that update already writes every index entry anew), and events waiting for the relay are
-- few and found through outbox_events_unpublished_idx. The app id is compared as text, so no
-- payload can make the relay's stamp fail on a cast. Writes wait while they are built; where the
-- outbox already holds much history, build them first without stopping them (CREATE INDEX
-- CONCURRENTLY with these names) and this finds them.
CREATE INDEX IF NOT EXISTS "outbox_events_published_by_author_idx" ON "outbox_events"(
  (("payload" -> 'app') ->> 'id'), ((("payload" -> 'data') -> 'author') ->> 'external_id')
) WHERE "published_at" IS NOT NULL;
CREATE INDEX IF NOT EXISTS "outbox_events_published_by_sender_idx" ON "outbox_events"(
  (("payload" -> 'app') ->> 'id'), ((("payload" -> 'data') -> 'sender') ->> 'external_id')
) WHERE "published_at" IS NOT NULL;
