import { spawnSync } from 'node:child_process';
import { expect } from 'chai';
import { parse } from 'yaml';
import { startBuyerServer, type TestBuyerServer } from '../support/buyer-server.js';
import { testBuyer } from '../support/buyers.js';
import { validLeadBody } from '../support/leads.js';
import { recordSkippedSuite } from '../support/skipped-suites.js';
import { startTestStack, type TestStack } from '../support/stack.js';
import { sqliteDatabase, type TestDatabase } from '../support/test-database.js';
import { abs, read } from './deploy-files.js';

const ALERTS = 'deploy/prometheus/alerts.yml';
const DASHBOARD = 'deploy/grafana/leadflow-dashboard.json';
/** Series Prometheus makes itself rather than scraping them. */
const PROMETHEUS_SERIES = new Set(['up']);
const PROMQL_WORDS = new Set([
  'and',
  'or',
  'unless',
  'bool',
  'offset',
  'by',
  'without',
  'on',
  'ignoring',
  'group_left',
  'group_right',
  'inf',
  'nan',
]);

/**
 * The metric names a PromQL expression reads: identifiers left once strings, label matchers, ranges and
 * grouping clauses are taken out, other than functions (followed by a parenthesis) and keywords.
 */
function promqlMetricNames(expr: string): string[] {
  const bare = expr
    .replace(/"(?:[^"\\]|\\.)*"/g, '""')
    .replace(/\boffset\s+\S+/g, ' ')
    .replace(/\{[^}]*\}/g, ' ')
    .replace(/\[[^\]]*\]/g, ' ')
    .replace(/\b(by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)/g, ' ');
  const names = [...bare.matchAll(/(?<![\w.$])([A-Za-z_:][A-Za-z0-9_:]*)(\s*\()?/g)]
    .filter(([, name, call]) => !call && !PROMQL_WORDS.has(name!.toLowerCase()))
    .map(([, name]) => name!);
  return [...new Set(names)];
}

/** Series labels Prometheus adds to every scraped sample. */
const TARGET_LABELS = new Set(['job', 'instance']);

/** The label names an expression matches or groups on. */
function promqlLabelNames(expr: string): string[] {
  const matchers = [...expr.matchAll(/\{([^}]*)\}/g)].flatMap(([, inside]) =>
    [...inside!.matchAll(/([A-Za-z_]\w*)\s*(?:=~|!~|!=|=)/g)].map(([, name]) => name!),
  );
  const grouped = [...expr.matchAll(/\b(?:by|without|on|ignoring)\s*\(([^)]*)\)/g)].flatMap(([, inside]) =>
    inside!
      .split(',')
      .map((name) => name.trim())
      .filter(Boolean),
  );
  return [...new Set([...matchers, ...grouped])];
}

/** Every label name the samples of a /metrics text carry. */
function exposedLabels(text: string): Set<string> {
  const labels = new Set<string>();
  for (const [, inside] of text.matchAll(/^[^#\s][^{\s]*\{(.*)\}\s/gm))
    for (const [, name] of inside!.matchAll(/([A-Za-z_]\w*)="/g)) labels.add(name!);
  return labels;
}

/** Every metric name a /metrics text declares, with a histogram's _bucket, _sum and _count series. */
function exposedNames(text: string): Set<string> {
  const names = new Set<string>();
  for (const [, name, type] of text.matchAll(/^# TYPE (\S+) (\S+)$/gm)) {
    names.add(name!);
    if (type === 'histogram' || type === 'summary')
      for (const suffix of ['_bucket', '_sum', '_count']) names.add(`${name}${suffix}`);
  }
  return names;
}

interface AlertRule {
  alert: string;
  expr: string;
}

function alertRules(): AlertRule[] {
  const document = parse(read(ALERTS)) as { groups: { rules: AlertRule[] }[] };
  return document.groups.flatMap((group) => group.rules);
}

function dashboardExpressions(): { title: string; expr: string }[] {
  const dashboard = JSON.parse(read(DASHBOARD)) as { panels: { title: string; targets?: { expr: string }[] }[] };
  return dashboard.panels.flatMap((panel) =>
    (panel.targets ?? []).map((target) => ({ title: panel.title, expr: target.expr })),
  );
}

describe('deploy: Prometheus alert rules', () => {
  const promtool = spawnSync('promtool', ['--version'], { encoding: 'utf8' });
  const available = !promtool.error;

  it('pass `promtool check rules`', function () {
    if (!available) {
      const reason = 'promtool is not installed (Debian: apt-get install prometheus)';
      if (process.env.LEADFLOW_REQUIRE_PROMTOOL === '1') throw new Error(`${reason} (LEADFLOW_REQUIRE_PROMTOOL=1)`);
      recordSkippedSuite('deploy: Prometheus alert rules [promtool]', reason);
      this.skip();
    }
    const checked = spawnSync('promtool', ['check', 'rules', abs(ALERTS)], { encoding: 'utf8' });
    expect(checked.status, `${checked.stdout}${checked.stderr}`).to.equal(0);
    expect(checked.stdout).to.match(/SUCCESS: \d+ rules found/);
  });

  it('cover what an on-call engineer must hear about', () => {
    expect(alertRules().map((rule) => rule.alert)).to.include.members([
      'LeadflowTargetDown',
      'LeadflowIntakeErrorRate',
      'LeadflowIntakeLatencyP99High',
      'LeadflowNoSales',
      'LeadflowUnconfirmedLeadsPending',
      'LeadflowPostbacksBacklogged',
      'LeadflowPostbacksGivenUp',
      'LeadflowBuyerCircuitOpen',
      'LeadflowGrpcCertificateExpiresSoon',
    ]);
  });
});

describe('deploy: alert rules and dashboard read only metrics and labels the services expose', function () {
  this.timeout(60_000);
  let database: TestDatabase;
  let buyers: TestBuyerServer;
  let stack: TestStack;
  let exposed: Set<string>;
  let labels: Set<string>;

  before(async () => {
    database = await sqliteDatabase();
    buyers = await startBuyerServer();
    buyers.behave('/sold', { kind: 'accept' });
    stack = await startTestStack(database);
    await stack.distribution.applyBuyers([
      testBuyer('exposed', buyers.url('/sold')),
      testBuyer('not-in-california', buyers.url('/sold'), { filters: { not: { field: 'state', in: ['CA'] } } }),
    ]);
    // A sale, and a refusal by the key's rate limit (one a minute): series for both kinds of answers.
    const { key } = await stack.distribution.createPublisher(1);
    expect((await stack.post(key, validLeadBody())).body.status).to.equal('sold');
    expect((await stack.post(key, validLeadBody())).status).to.equal(429);
    const texts = await Promise.all(
      [`${stack.baseUrl}/metrics`, `http://127.0.0.1:${stack.distribution.service.metricsPort}/metrics`].map(
        async (url) => (await fetch(url)).text(),
      ),
    );
    exposed = new Set(texts.flatMap((text) => [...exposedNames(text)]));
    labels = new Set([...TARGET_LABELS, ...texts.flatMap((text) => [...exposedLabels(text)])]);
  });
  after(async () => {
    await stack?.close();
    await buyers?.close();
    await database?.drop();
  });

  it('finds the metric names in PromQL', () => {
    expect(
      promqlMetricNames(
        'sum by (buyer_name, le) (rate(leadflow_buyer_latency_seconds_bucket{kind="post"}[5m])) / on (job) up and time() - x_total offset 5m > 2',
      ),
    ).to.deep.equal(['leadflow_buyer_latency_seconds_bucket', 'up', 'x_total']);
    expect(
      promqlLabelNames('sum by (buyer_name, le) (rate(a{kind="post",outcome=~"e|t"}[5m])) / on (job) up'),
    ).to.have.members(['kind', 'outcome', 'buyer_name', 'le', 'job']);
  });

  it('in every alert rule', () => {
    for (const rule of alertRules()) {
      const names = promqlMetricNames(rule.expr);
      expect(names, rule.alert).to.not.be.empty;
      for (const name of names)
        expect(exposed.has(name) || PROMETHEUS_SERIES.has(name), `${rule.alert} reads ${name}`).to.equal(true);
      for (const label of promqlLabelNames(rule.expr))
        expect(labels.has(label), `${rule.alert} uses label ${label}`).to.equal(true);
    }
  });

  it('in every dashboard panel', () => {
    const expressions = dashboardExpressions();
    expect(expressions.length).to.be.above(10);
    for (const { title, expr } of expressions) {
      const names = promqlMetricNames(expr);
      expect(names, title).to.not.be.empty;
      for (const name of names) expect(exposed.has(name), `"${title}" reads ${name}`).to.equal(true);
      for (const label of promqlLabelNames(expr))
        expect(labels.has(label), `"${title}" uses label ${label}`).to.equal(true);
    }
  });
});
