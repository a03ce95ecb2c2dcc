// The operator console's HTML document (GET /console). Static: no data is rendered on the
// server; the script (app-script.ts) signs in with the admin key and fills the panels through
// the admin JSON routes. Served with a CSP that allows only same-origin script, style and fetch.

import { CONTROLS_PANEL_HTML } from './controls-panel.js';
import { FREEZE_PANEL_HTML } from './freeze-panel.js';

export const CONSOLE_PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>tokenproxy console</title>
<link rel="icon" href="favicon.ico">
<link rel="stylesheet" href="console/app.css">
<script type="module" src="console/app.js"></script>
</head>
<body>
<header class="bar">
  <h1>tokenproxy <span class="muted">console</span></h1>
  <span id="env" class="tag" hidden></span>
  <span id="updated" class="muted"></span>
  <span class="muted">times in UTC</span>
  <button id="signout" type="button" hidden>Sign out</button>
</header>

<section id="signin" class="signin">
  <h2>Sign in</h2>
  <p class="muted">The admin API key (<code>admin.key</code> in the data folder). It is kept in this tab only.</p>
  <form id="signin-form" autocomplete="off">
    <label for="signin-key">Admin key</label>
    <input id="signin-key" name="key" type="password" required spellcheck="false">
    <button type="submit">Sign in</button>
  </form>
  <p id="signin-error" class="error" role="alert" hidden></p>
</section>

<main id="app" hidden>
  <p id="refresh-error" class="error" role="alert" hidden></p>
  <div class="grid">
    <section class="panel span2" id="supply-panel">
      <h2>Supply</h2>
      <dl class="figures">
        <div><dt>Genesis</dt><dd id="supply-genesis">–</dd></div>
        <div><dt>Circulating</dt><dd id="supply-circulating">–</dd></div>
        <div><dt>Treasury</dt><dd id="supply-treasury">–</dd></div>
        <div><dt>Burned</dt><dd id="supply-burned">–</dd></div>
        <div><dt>of which redeemed</dt><dd id="supply-redeemed">–</dd></div>
      </dl>
      <div id="supply-charts" class="charts"></div>
    </section>

    <section class="panel" id="funding-panel">
      <h2>Funding pool <span id="funding-level" class="level">–</span></h2>
      <dl class="figures">
        <div><dt>Available outputs</dt><dd id="funding-available">–</dd></div>
        <div><dt>Reserved</dt><dd id="funding-reserved">–</dd></div>
        <div><dt>Satoshis in pool</dt><dd id="funding-satoshis">–</dd></div>
        <div><dt>Reserve satoshis</dt><dd id="funding-reserve">–</dd></div>
        <div><dt>Transfers left</dt><dd id="funding-left">–</dd></div>
        <div><dt>Fee rate (sat/kB)</dt><dd id="funding-rate">–</dd></div>
      </dl>
      <p class="muted">Pay satoshis to <code id="funding-address">–</code>; low-water mark <span id="funding-lowwater">–</span> outputs.</p>
      <div id="funding-chart" class="charts one"></div>
    </section>

    <section class="panel wide" id="tickets-panel">
      <h2>Tickets</h2>
      <dl class="figures" id="ticket-counts"></dl>
      <div id="tickets-chart" class="chart"></div>
      <h3>Latest failed</h3>
      <table><thead><tr><th>Ticket</th><th>Txid</th><th>Error</th><th>When</th></tr></thead>
      <tbody id="failed-tickets"></tbody></table>
    </section>

    <section class="panel" id="chain-panel">
      <h2>Chain <span id="chain-ledger" class="tag">–</span></h2>
      <dl class="figures">
        <div><dt>Tip height</dt><dd id="chain-height">–</dd></div>
        <div><dt>Tip time</dt><dd id="chain-time">–</dd></div>
      </dl>
      <p class="hash"><code id="chain-hash">–</code></p>
      <div id="mine-box" hidden>
        <button id="mine-button" type="button" data-needs="admin">Mine a block</button>
        <span id="mine-result" class="muted" role="status"></span>
      </div>
      <table><thead><tr><th>Height</th><th>Hash</th><th>Txs</th><th>Time</th></tr></thead>
      <tbody id="chain-blocks"></tbody></table>
    </section>

    <section class="panel" id="deliveries-panel">
      <h2>Callback deliveries <span class="muted">(24 h)</span></h2>
      <dl class="figures">
        <div><dt>Attempts</dt><dd id="deliveries-attempts">–</dd></div>
        <div><dt>Success rate</dt><dd id="deliveries-rate">–</dd></div>
        <div><dt>Latency p50 / p90 / p99</dt><dd id="deliveries-latency">–</dd></div>
        <div><dt>Events pending / dead</dt><dd id="deliveries-events">–</dd></div>
      </dl>
      <div id="deliveries-charts" class="charts one"></div>
      <h3>Failing receivers</h3>
      <table><thead><tr><th>Origin</th><th>Failures</th><th>Last error</th></tr></thead>
      <tbody id="failing-receivers"></tbody></table>
    </section>



    <section class="panel" id="mint-panel">
      <h2>Mint and burn</h2>
      <form id="mint-form" class="stack" autocomplete="off" data-needs="mint">
        <label for="mint-to">Mint to address</label>
        <input id="mint-to" name="to" required spellcheck="false">
        <label for="mint-amount">Amount (tokens)</label>
        <input id="mint-amount" name="amount" required inputmode="decimal" placeholder="12.5">
        <button type="submit">Mint</button>
      </form>
      <p id="mint-result" class="result" role="status"></p>
      <form id="faucet-form" class="stack" autocomplete="off">
        <label for="faucet-to">Sandbox faucet: test tokens to address</label>
        <input id="faucet-to" name="address" required spellcheck="false">
        <button type="submit">Send test tokens</button>
      </form>
      <p id="faucet-result" class="result" role="status"></p>
      <form id="burn-form" class="stack" autocomplete="off" data-needs="burn">
        <label for="burn-amount">Burn amount (tokens)</label>
        <input id="burn-amount" name="amount" required inputmode="decimal">
        <label for="burn-from">From</label>
        <select id="burn-from" name="from"><option value="mint">treasury (mint address)</option><option value="fee">fee address</option></select>
        <button type="submit">Burn</button>
      </form>
      <p id="burn-result" class="result" role="status"></p>
    </section>

${FREEZE_PANEL_HTML}
${CONTROLS_PANEL_HTML}
    <section class="panel wide" id="search-panel">
      <h2>Search</h2>
      <form id="search-form" class="inline" autocomplete="off">
        <input id="search-q" name="q" placeholder="address, txid, ticket ID or txid:vout" spellcheck="false" required>
        <button type="submit">Search</button>
      </form>
      <p id="search-error" class="error" role="alert" hidden></p>
      <div id="search-result"></div>
    </section>

    <section class="panel wide" id="keys-panel" data-needs="keys">
      <h2>API keys</h2>
      <form id="key-form" class="inline" autocomplete="off">
        <input id="key-name" name="name" placeholder="name" maxlength="200" required>
        <label><input type="checkbox" name="scope" value="read" checked> read</label>
        <label><input type="checkbox" name="scope" value="submit" checked> submit</label>
        <label><input type="checkbox" name="scope" value="admin"> admin</label>
        <button type="submit">Create key</button>
      </form>
      <div id="key-created" class="notice" hidden>
        <p>New key <strong id="key-created-name"></strong>: copy it now, it is not shown again.</p>
        <p><code id="key-created-value"></code></p>
        <button id="key-created-done" type="button">Done</button>
      </div>
      <p id="key-result" class="result" role="status"></p>
      <table><thead><tr><th>Name</th><th>Id</th><th>Scopes</th><th>Created</th><th>Last used</th><th></th></tr></thead>
      <tbody id="keys-table"></tbody></table>
    </section>
  </div>
</main>
</body>
</html>
`;
