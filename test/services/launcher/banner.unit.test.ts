import path from 'node:path';
import { reachableBaseUrl, startBanner } from '@leadflow/launcher/src/banner';
import { expect } from 'chai';

describe('npm start banner', () => {
  const facts = { httpPort: 3000, grpcPort: 50051, dataDir: '/data', storage: 'embedded SQLite in /data' };

  it('names the address the gateway is bound to, and says so when that is every interface', () => {
    expect(startBanner({ ...facts, httpHost: '127.0.0.1' })[1]).to.equal(
      'leadflow is running: gateway http://127.0.0.1:3000, distribution service 127.0.0.1:50051',
    );
    expect(startBanner({ ...facts, httpHost: '0.0.0.0' })[1]).to.equal(
      'leadflow is running: gateway http://127.0.0.1:3000 (listening on every interface: 0.0.0.0), distribution service 127.0.0.1:50051',
    );
    expect(reachableBaseUrl('::1', 3000)).to.equal('http://[::1]:3000');
    expect(reachableBaseUrl('::', 3000)).to.equal('http://127.0.0.1:3000');
    expect(reachableBaseUrl('192.0.2.2', 8080)).to.equal('http://192.0.2.2:8080');
  });

  it('prints the demo key only when given as created, and never the metrics token', () => {
    const demoKey = { file: '/data/demo-key.txt' };
    const later = startBanner({
      ...facts,
      httpHost: '127.0.0.1',
      demoKey,
      metricsTokenFile: '/data/metrics-token.txt',
    }).join('\n');
    expect(later).to.include('$(cat /data/demo-key.txt)');
    expect(later).to.include('Authorization: Bearer $(cat /data/metrics-token.txt)');
    expect(later).to.not.include('lfpk_');
    const first = startBanner({
      ...facts,
      httpHost: '127.0.0.1',
      demoKey: { ...demoKey, createdKey: 'lfpk_demo' },
    }).join('\n');
    expect(first).to.include('shown this once (kept in /data/demo-key.txt): lfpk_demo');
  });

  it("points at the lead's story and the walk through the demo, with the settings the command needs", () => {
    const demoKey = { file: '/data/demo-key.txt' };
    const next = (banner: string[]) => banner.find((line) => line.startsWith('then: '));
    expect(next(startBanner({ ...facts, httpHost: '127.0.0.1', demoKey }))).to.equal(
      'then: LEADFLOW_DATA_DIR=/data npx leadflow lead show LEAD_ID (the leadId answered: every ping, post and skip of that lead); the demo step by step: docs/getting-started.md',
    );
    const defaults = { ...facts, httpHost: '127.0.0.1', demoKey, dataDir: path.resolve('.leadflow') };
    expect(next(startBanner(defaults))).to.match(/^then: npx leadflow lead show LEAD_ID /);
    expect(next(startBanner({ ...defaults, grpcPort: 50052 }))).to.match(
      /^then: LEADFLOW_GRPC_PORT=50052 npx leadflow lead show LEAD_ID /,
    );
  });
});
