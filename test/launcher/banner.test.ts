import { expect } from 'chai';
import { reachableBaseUrl, startBanner } from '../../services/launcher/src/banner.js';

describe('npm start banner', () => {
  const facts = { httpPort: 3000, grpcPort: 50051, storage: 'embedded SQLite in /data' };

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
});
