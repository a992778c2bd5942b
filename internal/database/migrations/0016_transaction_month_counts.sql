-- The unfiltered listing's total and a deep page's starting day at a million
-- transactions in a workspace.

-- The transaction counts rolled up per month (its first day), type and category: a
-- listing's total sums a workspace's months (sixty rows over five years, not the
-- eighteen thousand of its days), and a deep page finds its month here before its day
-- among that month's days. Kept by the same statements as the counts per day, under the
-- same rule: a group whose last transaction goes away loses its row.
CREATE TABLE transaction_month_counts (
    workspace_id uuid   NOT NULL,
    month        date   NOT NULL,
    type         text   NOT NULL,
    category_id  uuid   NOT NULL,
    count        bigint NOT NULL,
    PRIMARY KEY (workspace_id, month, type, category_id)
);

-- The counts per day are the live transactions grouped (the projections keep them so,
-- and verify checks it): their months are the transactions' months.
INSERT INTO transaction_month_counts (workspace_id, month, type, category_id, count)
SELECT workspace_id, date_trunc('month', day)::date, type, category_id, sum(count)
FROM transaction_counts
GROUP BY 1, 2, 3, 4;
