-- transactions_by_wallet_date (0029) found a statement row's possible duplicates: a
-- wallet's transactions near the row's date. Since 0039 those are found by amount and
-- date (transactions_amounts), and no read goes by the wallet's dates alone: a wallet's
-- listing and balance ask for its transactions in or out (wallet_id or to_wallet_id),
-- which this index cannot answer; the rules' candidates in a wallet walk the listing's
-- index between their dates. Each transaction written paid for it: about a tenth of
-- inserting a statement's 100,000 new transactions into a wallet of a million (3.7-4.1 s
-- against 4.0-4.6 s, by hand).
DROP INDEX transactions_by_wallet_date;
