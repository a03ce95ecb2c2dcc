// The alerting rules and the dashboard in deploy/ (docs/operations.md, "Alerts" and "Dashboard"):
// promtool's unit tests of the rules pass (alerts.test.yml; CI installs Debian's prometheus
// package for promtool, and runs them itself too), every alert the operator needs is there, and
// every series a rule or a dashboard query names is one the service registers (src/metrics), so
// neither drifts from what /metrics serves.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';
import { registerRoleGauges } from '../../src/metrics/role-gauges.js';
import { registerServiceGauges } from '../../src/metrics/service-gauges.js';
import { createServiceMetrics } from '../../src/metrics/service-metrics.js';
import { createRoleLiveness } from '../../src/roles/role-liveness.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const read = (path: string) => readFileSync(`${ROOT}/${path}`, 'utf8');

const promtool = spawnSync('promtool', ['--version'], { encoding: 'utf8' });
const promtoolMissing = promtool.error !== undefined;
const skipWithoutPromtool: string | false =
  promtoolMissing && process.env.CI === undefined
    ? "promtool is missing: install Debian's prometheus package (apt-get install --no-install-recommends prometheus) to run the alerting rules' unit tests"
    : false;

/** Every series name /metrics can serve: what src/metrics registers (histograms with their suffixes). */
function servedSeries(): Set<string> {
  const metrics = createServiceMetrics();
  const db = { query: async () => [] } as never;
  registerServiceGauges(metrics, {
    db,
    log: { warn() {} },
    token: { mintAddress: 'm', burnAddress: 'b' },
    genesisSupply: 1n,
    lowWater: 1,
  });
  registerRoleGauges(metrics, createRoleLiveness({ boundMs: 1000 }));
  const names = new Set<string>();
  for (const metric of metrics.registry.getMetricsAsArray()) {
    const { name, type } = metric as unknown as { name: string; type: string };
    names.add(name);
    if (type === 'histogram') for (const suffix of ['_bucket', '_sum', '_count']) names.add(name + suffix);
    if (type === 'summary') for (const suffix of ['_sum', '_count']) names.add(name + suffix);
  }
  return names;
}

/** The series a PromQL expression names: identifiers outside label matchers and strings, not functions or keywords. */
function seriesIn(expr: string): string[] {
  const bare = expr
    .replace(/"[^"]*"/g, '""')
    .replace(/\b\d+(\.\d+)?(e[+-]?\d+)?\b/gi, '0')
    .replace(/\{[^}]*\}/g, '')
    .replace(/\[[^\]]*\]/g, '');
  // Whole identifiers not followed by `(` (a function's name).
  const words = [...bare.matchAll(/[a-zA-Z_:][a-zA-Z0-9_:]*/g)]
    .filter((m) => !/^\s*\(/.test(bare.slice(m.index! + m[0].length)))
    .map((m) => m[0]);
  const keywords = new Set([
    ...[
      'by',
      'without',
      'on',
      'ignoring',
      'group_left',
      'group_right',
      'and',
      'or',
      'unless',
      'bool',
      'offset',
    ],
    // Aggregations, which may put `by (...)` before their parenthesis.
    ...['sum', 'min', 'max', 'avg', 'count', 'group', 'stddev', 'stdvar', 'topk', 'bottomk', 'quantile'],
  ]);
  // Grouping labels: `by (le, stage)`.
  const grouped = new Set(
    (bare.match(/\b(?:by|without|on|ignoring)\s*\(([^)]*)\)/g) ?? []).flatMap((g) =>
      g
        .replace(/^[a-z_]+\s*\(|\)$/g, '')
        .split(',')
        .map((s) => s.trim()),
    ),
  );
  return words.filter((w) => !keywords.has(w) && !grouped.has(w) && !/^\d/.test(w));
}

interface Rule {
  readonly alert: string;
  readonly expr: string;
}

const rules = (parse(read('deploy/prometheus/alerts.yml')) as { groups: { rules: Rule[] }[] }).groups.flatMap(
  (g) => g.rules,
);
const dashboard = JSON.parse(read('deploy/grafana/tokenproxy.json')) as {
  panels: { type: string; title: string; targets?: { expr: string }[] }[];
  templating: { list: { query?: unknown }[] };
};

describe('deploy/prometheus and deploy/grafana', () => {
  it("promtool's unit tests of the alerting rules pass", { skip: skipWithoutPromtool }, () => {
    assert.ok(!promtoolMissing, "promtool is installed (CI installs Debian's prometheus package)");
    for (const args of [
      ['check', 'rules', 'deploy/prometheus/alerts.yml'],
      ['test', 'rules', 'deploy/prometheus/alerts.test.yml'],
    ]) {
      const run = spawnSync('promtool', args, { cwd: ROOT, encoding: 'utf8' });
      assert.equal(run.status, 0, `promtool ${args.join(' ')}:\n${run.stdout}${run.stderr}`);
    }
  });

  it('every alert the operator needs is there, and each is unit-tested', () => {
    const names = rules.map((r) => r.alert);
    assert.deepEqual(names.sort(), [
      'TokenproxyCallbackBacklog',
      'TokenproxyCallbackDeliveriesFailing',
      'TokenproxyFundingPoolEmpty',
      'TokenproxyFundingPoolLow',
      'TokenproxyLedgerUnavailable',
      'TokenproxyProcessDown',
      'TokenproxyProcessRestarting',
      'TokenproxyRoleNotReady',
      'TokenproxySubscriptionBacklog',
      'TokenproxySubscriptionDeliveriesFailing',
      'TokenproxySupplyImbalance',
      'TokenproxyTicketsStuckBroadcasting',
      'TokenproxyTicketsStuckSuccess',
    ]);
    const tests = read('deploy/prometheus/alerts.test.yml');
    for (const name of names)
      assert.match(
        tests,
        new RegExp(`alertname: ${name}\\n\\s+exp_alerts:\\n\\s+- `),
        `${name} is tested firing`,
      );
  });

  it('every series a rule or a dashboard query names is one the service serves', () => {
    const served = servedSeries();
    assert.ok(
      served.has('tokenproxy_tickets') && served.has('process_start_time_seconds'),
      'the registry as served',
    );
    const exprs = [
      ...rules.map((r) => ({ where: `alert ${r.alert}`, expr: r.expr })),
      ...dashboard.panels.flatMap((p) =>
        (p.targets ?? []).map((t) => ({ where: `panel ${p.title}`, expr: t.expr })),
      ),
      ...dashboard.templating.list.flatMap((v) =>
        typeof v.query === 'string' && v.query.startsWith('label_values(')
          ? [{ where: 'a variable', expr: v.query.replace(/^label_values\(([^,]+),.*$/, '$1') }]
          : [],
      ),
    ];
    const named = new Set<string>();
    for (const { where, expr } of exprs) {
      // `up` is Prometheus's own (whether a scrape answered): alerts may name it.
      const all = seriesIn(expr);
      assert.ok(all.length > 0, `${where} names a series: ${expr}`);
      const series = all.filter((s) => !(s === 'up' && where.startsWith('alert')));
      for (const s of series) {
        assert.ok(served.has(s), `${where}: ${s} is not a series the service serves`);
        named.add(s);
      }
    }
    // Every panel queries something; the dashboard shows each tokenproxy series family.
    for (const p of dashboard.panels.filter((p) => p.type !== 'row'))
      assert.ok((p.targets ?? []).length > 0, `panel ${p.title} has a query`);
    const families = (s: string) => s.replace(/_(bucket|sum|count)$/, '');
    const shown = new Set([...named].map(families));
    for (const s of served)
      if (s.startsWith('tokenproxy_') && !/_(bucket|sum|count)$/.test(s))
        assert.ok(shown.has(s), `the dashboard shows ${s}`);
  });
});
