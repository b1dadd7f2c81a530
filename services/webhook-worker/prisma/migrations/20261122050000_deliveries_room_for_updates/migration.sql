-- A delivery row is updated after each attempt (status, attempts, last response code), none of
-- them indexed: with room left on its page the new version stays there (a heap-only update),
-- without new entries in the table's three indexes.
ALTER TABLE "deliveries" SET (fillfactor = 70);
