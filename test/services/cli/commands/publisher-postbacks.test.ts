import { expect } from 'chai';
import { startTestDistribution, type TestDistribution } from '../../../support/distribution.js';
import { type StackCli, stackCli } from '../../../support/run-leadflow.js';
import { sqliteDatabase } from '../../../support/test-database.js';

describe("leadflow publisher update, postback-secret and postbacks: a publisher's postbacks", () => {
  let stack: TestDistribution;
  let cli: StackCli;
  let publisher: { id: string; key: string };

  before(async () => {
    stack = await startTestDistribution(await sqliteDatabase());
    cli = stackCli(stack);
    publisher = await stack.createPublisher();
  });
  after(() => stack?.close());

  it('sets the postback URL, refusing one a buyer not marked local could not be called at', async () => {
    const refused = await cli.leadflow(['publisher', 'update', publisher.id, '--postback-url', 'http://10.0.0.7/hook']);
    expect(refused.code).to.equal(1);
    expect(refused.stderr).to.include('url must be https on a public address');
    for (const thisHost of ['https://localhost/hook', 'https://hooks.LOCALHOST./lf']) {
      const loopback = await cli.leadflow(['publisher', 'update', publisher.id, '--postback-url', thisHost]);
      expect(loopback.code, thisHost).to.equal(1);
      expect(loopback.stderr).to.include('url must be https on a public address');
    }

    const set = await cli.json('publisher', 'update', publisher.id, '--postback-url', 'https://hooks.example.com/lf');
    expect(set).to.deep.equal({ publisherId: publisher.id, url: 'https://hooks.example.com/lf', local: false });
    const local = await cli.leadflow([
      'publisher',
      'update',
      publisher.id,
      '--postback-url',
      'http://10.0.0.7/hook',
      '--postback-local',
    ]);
    expect(local.code).to.equal(0);
    expect(local.stdout).to.match(/^Postback URL:\s+http:\/\/10\.0\.0\.7\/hook$/m);
    expect(local.stdout).to.match(/^Local:\s+yes/m);

    const removed = await cli.json('publisher', 'update', publisher.id, '--postback-url', '');
    expect(removed.url).to.equal('');
    const missing = await cli.leadflow(['publisher', 'update', publisher.id]);
    expect(missing.code).to.equal(2);
    expect(missing.stderr).to.include('--postback-url is required');
  });

  it('shows the same signing secret until it is rotated, and a new one after', async () => {
    const first = await cli.json('publisher', 'postback-secret', publisher.id);
    expect(first.signingSecret).to.match(/^whsec_[A-Za-z0-9_-]{43}$/);
    expect((await cli.json('publisher', 'postback-secret', publisher.id)).signingSecret).to.equal(first.signingSecret);
    const rotated = await cli.json('publisher', 'postback-secret', publisher.id, '--rotate');
    expect(rotated.signingSecret)
      .to.match(/^whsec_/)
      .and.not.to.equal(first.signingSecret);
    expect((await cli.json('publisher', 'postback-secret', publisher.id)).signingSecret).to.equal(
      rotated.signingSecret,
    );
  });

  it('lists no events for a publisher without any, and says so for an unknown publisher', async () => {
    expect((await cli.leadflow(['publisher', 'postbacks', publisher.id])).stdout).to.equal('No postback events.\n');
    expect(await cli.json('publisher', 'postbacks', publisher.id)).to.deep.equal({ deliveries: [] });
    const unknown = await cli.leadflow(['publisher', 'postbacks', 'pub_unknown']);
    expect(unknown.code).to.equal(1);
    expect(unknown.stderr).to.include('no such publisher');
  });
});
