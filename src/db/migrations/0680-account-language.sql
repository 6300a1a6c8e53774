-- Issue 30 item 9: the web account speaks English or Russian; the account's choice is stored so
-- that its e-mails are written in it too (docs/web-account.md, "Languages").
ALTER TABLE accounts ADD COLUMN language text NOT NULL DEFAULT 'en' CHECK (language IN ('en', 'ru'));
