-- A recurring payment owing more cycles than it pays late skips the oldest
-- (recurring.skipped.v1); its record shows the latest skip: how many cycles, the first
-- and last due dates skipped. Null until it skips any.
ALTER TABLE recurring_payments
    ADD COLUMN last_skip_cycles    integer,
    ADD COLUMN last_skip_first_due date,
    ADD COLUMN last_skip_last_due  date;
