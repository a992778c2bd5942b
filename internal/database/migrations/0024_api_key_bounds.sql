-- An API key holds no scope its creator's role did not grant when it was made, and ends
-- with the membership it was made in. role is that role, from the key's event (or, for
-- keys made before events carried it, the creator's role at that point of the stream,
-- as the replay's upcaster finds it).
ALTER TABLE api_keys ADD COLUMN role text;

WITH keys AS MATERIALIZED (
    SELECT stream_id, version, (data->>'keyId')::uuid AS key_id, data->>'createdBy' AS creator
    FROM events WHERE type = 'api_key.created.v1'
), memberships AS MATERIALIZED (
    SELECT stream_id, version, coalesce(data->>'userId', data->>'ownerId') AS user_id,
        CASE type WHEN 'workspace.created.v1' THEN 'owner' WHEN 'member.added.v1' THEN data->>'role'
            WHEN 'member.role_changed.v1' THEN data->>'after' END AS role
    FROM events WHERE type IN ('workspace.created.v1', 'member.added.v1', 'member.role_changed.v1', 'member.removed.v1')
), held AS (
    SELECT DISTINCT ON (k.stream_id, k.key_id) k.stream_id, k.key_id, m.role
    FROM keys k JOIN memberships m ON m.stream_id = k.stream_id AND m.user_id = k.creator AND m.version < k.version
    ORDER BY k.stream_id, k.key_id, m.version DESC
)
UPDATE api_keys a SET role = h.role FROM held h
WHERE h.stream_id = 'workspace-' || a.workspace_id AND h.key_id = a.id;

-- Removals recorded before they revoked the member's keys only suspended them. Each such
-- key is revoked as a replay revokes it: when the first, in the log's order, of its
-- revocation, its creator's removal after it and its creator's account's deletion
-- happened.
WITH keys AS MATERIALIZED (
    SELECT stream_id, version, (data->>'keyId')::uuid AS key_id, data->>'createdBy' AS creator
    FROM events WHERE type = 'api_key.created.v1'
), endings AS MATERIALIZED (
    SELECT stream_id, version, type, tx_id, position, recorded_at, data->>'userId' AS user_id, data->>'keyId' AS key_id
    FROM events WHERE type IN ('member.removed.v1', 'api_key.revoked.v1', 'user.deleted.v1')
), ended AS (
    SELECT DISTINCT ON (k.stream_id, k.key_id) k.stream_id, k.key_id, n.recorded_at
    FROM keys k JOIN endings n
        ON (n.type = 'member.removed.v1' AND n.stream_id = k.stream_id AND n.version > k.version AND n.user_id = k.creator)
        OR (n.type = 'api_key.revoked.v1' AND n.stream_id = k.stream_id AND n.key_id = k.key_id::text)
        OR (n.type = 'user.deleted.v1' AND n.user_id = k.creator)
    WHERE EXISTS (SELECT FROM endings r WHERE r.type = 'member.removed.v1' AND r.stream_id = k.stream_id
        AND r.version > k.version AND r.user_id = k.creator)
    ORDER BY k.stream_id, k.key_id, n.tx_id, n.position
)
UPDATE api_keys a SET revoked_at = e.recorded_at FROM ended e
WHERE e.stream_id = 'workspace-' || a.workspace_id AND e.key_id = a.id AND a.revoked_at IS DISTINCT FROM e.recorded_at;
