import { isIPv6 } from 'node:net';
import { DEFAULT_GRPC_PORT, dataDir } from '@leadflow/service-kit/config';

const EVERY_INTERFACE = new Set(['0.0.0.0', '::', '']);

/** Where this machine reaches a server bound to `bindHost`: loopback for a wildcard bind, else the bind address. */
export function reachableBaseUrl(bindHost: string, port: number): string {
  const host = EVERY_INTERFACE.has(bindHost) ? '127.0.0.1' : bindHost;
  return `http://${isIPv6(host) ? `[${host}]` : host}:${port}`;
}

export interface BannerFacts {
  httpHost: string;
  httpPort: number;
  grpcPort: number;
  /** The embedded data directory, where the `leadflow` command finds the admin token. */
  dataDir: string;
  storage: string;
  /** The demo market's simulator URL, on the embedded default. */
  demoMarket?: string | undefined;
  /** The demo key's file; `createdKey` only on the start that created it (it is printed that once). */
  demoKey?: { file: string; createdKey?: string | undefined } | undefined;
  /** The file holding the token /metrics asks for, when `npm start` generated it. */
  metricsTokenFile?: string | undefined;
}

/** The settings the `leadflow` command needs to find this start's service, where they are not its defaults. */
function cliSettings(facts: BannerFacts): string {
  const settings: string[] = [];
  if (facts.dataDir !== dataDir({})) settings.push(`LEADFLOW_DATA_DIR=${facts.dataDir} `);
  if (facts.grpcPort !== DEFAULT_GRPC_PORT) settings.push(`LEADFLOW_GRPC_PORT=${facts.grpcPort} `);
  return settings.join('');
}

/** What `npm start` prints once everything answers: where things are, never a secret after the first start. */
export function startBanner(facts: BannerFacts): string[] {
  const base = reachableBaseUrl(facts.httpHost, facts.httpPort);
  const listening = EVERY_INTERFACE.has(facts.httpHost)
    ? ` (listening on every interface: ${facts.httpHost || '0.0.0.0'})`
    : '';
  const lines = [
    '',
    `leadflow is running: gateway ${base}${listening}, distribution service 127.0.0.1:${facts.grpcPort}`,
    `storage: ${facts.storage}`,
  ];
  if (facts.demoMarket)
    lines.push(`demo lenders: a buyer simulator at ${facts.demoMarket} (services/simulator/demo-market.yaml)`);
  if (facts.demoKey) {
    const { file, createdKey } = facts.demoKey;
    if (createdKey) lines.push(`demo publisher key, shown this once (kept in ${file}): ${createdKey}`);
    lines.push(
      `try: curl -s -X POST ${base}/api/intake/$(cat ${file}) -H 'Content-Type: application/json' -d @test/fixtures/demo-lead.json`,
      `then: ${cliSettings(facts)}npx leadflow lead show LEAD_ID (the leadId answered: every ping, post and skip of that lead); the demo step by step: docs/getting-started.md`,
    );
  }
  if (facts.metricsTokenFile) {
    lines.push(`metrics: curl -s ${base}/metrics -H "Authorization: Bearer $(cat ${facts.metricsTokenFile})"`);
  }
  lines.push('stop with Ctrl-C', '');
  return lines;
}
