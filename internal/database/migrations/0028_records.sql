-- A search that ignores accents and case and matches amounts, and
-- a cleared mark on transactions.

-- finledger_fold is a text as a search compares it: each Latin letter with a diacritic
-- (Latin-1 and Latin Extended-A and B) as its base letter, then lower case. A function
-- of our own, not unaccent: that is a contrib extension a server may lack, and not
-- immutable, so no index could hold it. translate folds the accented capitals itself, so
-- "SÚPER" folds to "super" whatever the database's collation.
CREATE FUNCTION finledger_fold(text) RETURNS text LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
    AS $$ SELECT lower(translate($1,
        'ÀÁÂÃÄÅÇÈÉÊËÌÍÎÏÑÒÓÔÕÖÙÚÛÜÝàáâãäåçèéêëìíîïñòóôõöùúûüýÿĀāĂăĄąĆćĈĉĊċČčĎďĒēĔĕĖėĘęĚěĜĝĞğĠġĢģĤĥĨĩĪīĬĭĮįİĴĵĶķĹĺĻļĽľŃńŅņŇňŌōŎŏŐőŔŕŖŗŘřŚśŜŝŞşŠšŢţŤťŨũŪūŬŭŮůŰűŲųŴŵŶŷŸŹźŻżŽžƠơƯưǍǎǏǐǑǒǓǔǕǖǗǘǙǚǛǜǞǟǠǡǦǧǨǩǪǫǬǭǰǴǵǸǹǺǻȀȁȂȃȄȅȆȇȈȉȊȋȌȍȎȏȐȑȒȓȔȕȖȗȘșȚțȞȟȦȧȨȩȪȫȬȭȮȯȰȱȲȳ',
        'aaaaaaceeeeiiiinooooouuuuyaaaaaaceeeeiiiinooooouuuuyyaaaaaaccccccccddeeeeeeeeeegggggggghhiiiiiiiiijjkkllllllnnnnnnoooooorrrrrrssssssssttttuuuuuuuuuuuuwwyyyzzzzzzoouuaaiioouuuuuuuuuuaaaaggkkoooojggnnaaaaaaeeeeiiiioooorrrruuuusstthhaaeeooooooooyy')) $$;

-- `search` and `q` look for the folded text anywhere in the folded concept or
-- description: the trigram indexes of 0015 go over to the folded texts.
DROP INDEX transactions_concept_trigrams;
DROP INDEX transactions_description_trigrams;
CREATE INDEX transactions_concept_folded ON transactions USING gin (finledger_fold(concept) gin_trgm_ops)
    WHERE deleted_at IS NULL;
CREATE INDEX transactions_description_folded ON transactions USING gin (finledger_fold(description) gin_trgm_ops)
    WHERE deleted_at IS NULL;
-- A search that reads as an amount also finds the transactions of that amount.
CREATE INDEX transactions_amounts ON transactions (workspace_id, amount) WHERE deleted_at IS NULL;

-- A transaction a person marked as cleared (seen on the bank's statement). Its history
-- keeps it too: transaction_versions holds the same columns in the same order.
ALTER TABLE transactions ADD COLUMN cleared boolean NOT NULL DEFAULT false;
ALTER TABLE transaction_versions ADD COLUMN cleared boolean NOT NULL DEFAULT false;

CREATE OR REPLACE VIEW finledger_asof.transactions AS
SELECT workspace_id, id, type, amount, currency, destination_amount, date, concept, description, wallet_id,
    to_wallet_id, category_id, goal_id, debt_id, tag_id, reference_number, attachment_url, deleted_at, created_at,
    updated_at, created_version, recurring_id, changed_version, cleared
FROM public.transactions
WHERE coalesce(changed_version, created_version) <= (SELECT finledger_asof.cut())
UNION ALL
SELECT workspace_id, id, type, amount, currency, destination_amount, date, concept, description, wallet_id,
    to_wallet_id, category_id, goal_id, debt_id, tag_id, reference_number, attachment_url, deleted_at, created_at,
    updated_at, created_version, recurring_id, changed_version, cleared
FROM public.transaction_versions
WHERE coalesce(changed_version, created_version) <= (SELECT finledger_asof.cut())
    AND replaced_version > (SELECT finledger_asof.cut());
