-- Browser sessions: a person signed in through the web app holds a random token in an
-- HttpOnly cookie; only its SHA-256 is kept here, beside the identity the sign-in
-- verified. Any instance can read it, and signing out deletes the row everywhere.
CREATE TABLE browser_sessions (
    token_hash bytea PRIMARY KEY,
    subject    text NOT NULL,
    issuer     text NOT NULL,
    email      text NOT NULL,
    name       text NOT NULL,
    created_at timestamptz NOT NULL,
    expires_at timestamptz NOT NULL
);
CREATE INDEX browser_sessions_expiry ON browser_sessions (expires_at);

-- A sign-in under way with the OpenID provider: the state sent with the person (kept
-- as its SHA-256), and the PKCE verifier and nonce, sealed. The callback deletes the row
-- as it reads it, so a state is spent once, whichever instance the callback reaches.
CREATE TABLE browser_signins (
    state_hash bytea PRIMARY KEY,
    sealed     bytea NOT NULL,
    expires_at timestamptz NOT NULL
);
