-- 030: the sandbox faucet's grants (POST /v2/faucet). Each grant is counted against its address
-- and its client address over the last day; the two indexes answer those counts. A grant whose
-- mint failed is deleted again, so only tokens sent count.
CREATE TABLE faucet_grants (
  id          bigserial PRIMARY KEY,
  address     text NOT NULL,
  client      text NOT NULL,
  amount      bigint NOT NULL,
  ticket_id   uuid,
  created_at  timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX faucet_grants_address ON faucet_grants (address, created_at);
CREATE INDEX faucet_grants_client ON faucet_grants (client, created_at);
