-- A site's blocks serve on its URL's domain and subdomains, and on the extra domains listed here
-- (docs/invalid-traffic.md, rule foreign_site): lower-case host names, at most 20.
ALTER TABLE sites ADD COLUMN domains text[] NOT NULL DEFAULT '{}'
  CHECK (cardinality(domains) <= 20);
