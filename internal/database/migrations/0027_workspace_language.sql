-- A workspace's language: the language of the text the service writes into its records
-- (a goal deposit's concept, a debt payment's). Empty is English, as for every
-- workspace created before it existed (workspace.created.v1 without a language).
ALTER TABLE workspaces ADD COLUMN language text NOT NULL DEFAULT '';
