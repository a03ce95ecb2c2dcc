-- No single key (issue 32): the approval policy (one row: which actions need K distinct keys),
-- proposals (an action waiting for approvals, with its validated body), their votes (one per key
-- and proposal: the primary key refuses a second), and per-key mint allowances (USDC's minter
-- allowance) with the record of what each mint spent, keyed by the mint's txid so that a retried
-- mint that submits the same transaction spends once. Proposals, votes, expiries, executions and
-- allowance changes are also recorded in control_events (021) with the key that made them.
CREATE TABLE approval_policy (
  singleton   boolean PRIMARY KEY DEFAULT true CHECK (singleton),
  rules       jsonb NOT NULL,                    -- domain/approval-policy.ts; [] = nothing needs approvals
  changed_by  text NOT NULL,
  changed_at  timestamptz NOT NULL
);
INSERT INTO approval_policy (rules, changed_by, changed_at) VALUES ('[]', 'migration', now());

CREATE TABLE proposals (
  id            uuid PRIMARY KEY,
  action        text NOT NULL,                   -- mint, seize, unpause, unfreeze, unblacklist, create-key, raise-allowance, set-policy
  body          jsonb NOT NULL,                  -- the action's validated request body
  summary       text NOT NULL,
  required      int NOT NULL CHECK (required >= 1),
  state         text NOT NULL CHECK (state IN ('open', 'approved', 'executed', 'failed', 'rejected', 'expired')),
  proposed_by   text NOT NULL,
  proposed_at   timestamptz NOT NULL,
  expires_at    timestamptz NOT NULL,
  decided_at    timestamptz,                     -- approved, rejected or expired
  claimed_until timestamptz,                     -- an executor's lease on an approved proposal
  finished_at   timestamptz,                     -- executed or failed
  result        jsonb,
  error         text
);
CREATE INDEX proposals_by_state ON proposals (state, proposed_at);

CREATE TABLE proposal_votes (
  proposal_id  uuid NOT NULL REFERENCES proposals (id),
  key_id       text NOT NULL,
  vote         text NOT NULL CHECK (vote IN ('approve', 'reject')),
  reason       text NOT NULL,
  at           timestamptz NOT NULL,
  PRIMARY KEY (proposal_id, key_id)
);

-- A key without a row mints without a cap; with one, a mint above `remaining` is refused.
CREATE TABLE mint_allowances (
  key_id     text PRIMARY KEY,
  remaining  numeric(78, 0) NOT NULL CHECK (remaining >= 0),
  set_by     text NOT NULL,
  set_at     timestamptz NOT NULL
);

CREATE TABLE mint_allowance_spends (
  txid     text PRIMARY KEY,
  key_id   text NOT NULL,
  amount   numeric(78, 0) NOT NULL CHECK (amount > 0),
  at       timestamptz NOT NULL
);
