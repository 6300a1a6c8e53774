-- What moderation approved of an ad while an edit of it waits for moderation: the content serving
-- shows and the URLs its click links lead to, copied from the ad when an approved ad is edited.
-- The ad keeps serving this version until the edit is approved (the row is deleted: the ad's own
-- columns are then what was approved) or rejected (deleted too: the ad serves nothing). An ad that
-- is approved has no row; one that waits without a row was never approved and serves nothing
-- (docs/moderation.md).
CREATE TABLE offer_approved_versions (
  offer_id      integer PRIMARY KEY REFERENCES offers (id),
  title         text NOT NULL,
  description   text NOT NULL,
  price_text    text NOT NULL,
  url           text NOT NULL,
  url_mobile    text NOT NULL,
  image_square  text,
  image_wide    text,
  approved_at   timestamptz NOT NULL
);
