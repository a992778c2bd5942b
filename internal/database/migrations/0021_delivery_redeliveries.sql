-- How many times a delivery was redelivered by hand. The sender reads it with the
-- delivery and records an attempt's outcome only if it has not changed since: a
-- redelivery asked for while an attempt was on its way is not undone when that attempt
-- is recorded, on whichever instance it was asked.
ALTER TABLE webhook_deliveries ADD COLUMN redeliveries integer NOT NULL DEFAULT 0;
