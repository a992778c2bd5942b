-- A user has one live (unused) link code: asking for a new one replaces it in one
-- statement (an upsert on this index), so two requests at once, on any instances,
-- cannot leave two. Codes left live by earlier races keep only the newest.
DELETE FROM whatsapp_link_codes c
WHERE c.used_at IS NULL AND EXISTS (
    SELECT 1 FROM whatsapp_link_codes n
    WHERE n.user_id = c.user_id AND n.used_at IS NULL AND (n.created_at, n.code_hash) > (c.created_at, c.code_hash)
);

-- The only lookup by user is of the live code, which the new index serves.
DROP INDEX whatsapp_link_codes_user;
CREATE UNIQUE INDEX whatsapp_link_codes_live ON whatsapp_link_codes (user_id) WHERE used_at IS NULL;
