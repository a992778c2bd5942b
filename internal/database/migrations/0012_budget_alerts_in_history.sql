-- Budget alerts are events now (budget.threshold_reached.v1), decided by the command
-- whose transaction reaches a budget's threshold and folded into the workspace state,
-- which knows the periods each budget alerted in. The dispatcher kept this table to
-- alert once per budget and period; nothing reads it any more. A dispatcher of an
-- older build that is still leading during an upgrade fails to record an alert here
-- and gives its messages back, and the new build's dispatcher handles them.
DROP TABLE budget_alerts;
