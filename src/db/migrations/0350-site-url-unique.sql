-- A publisher registers each address once. The service checked this before inserting, but two
-- concurrent requests could both pass the check, so a database may already hold duplicates.
-- Those rows are user data (they may have blocks, statistics and money attached) and are kept:
-- every row after the oldest of a group gets `duplicate_of` = the oldest one's id, and the unique
-- index covers only rows without it. New rows never set `duplicate_of`, so from now on no
-- address can be registered twice by one publisher, whatever the timing.
ALTER TABLE sites ADD COLUMN duplicate_of integer REFERENCES sites (id);

UPDATE sites
SET duplicate_of = oldest.id
FROM (
  SELECT publisher_id, url, min(id) AS id
  FROM sites
  GROUP BY publisher_id, url
  HAVING count(*) > 1
) AS oldest
WHERE sites.publisher_id = oldest.publisher_id
  AND sites.url = oldest.url
  AND sites.id <> oldest.id;

CREATE UNIQUE INDEX sites_publisher_url_key ON sites (publisher_id, url) WHERE duplicate_of IS NULL;
