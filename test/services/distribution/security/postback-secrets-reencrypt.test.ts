import { PiiCipher } from '@leadflow/distribution/src/security/pii-cipher';
import { expect } from 'chai';
import { startTestDistribution, type TestDistribution } from '../../../support/distribution.js';
import { bearer, call } from '../../../support/grpc.js';
import { piiKey } from '../../../support/pii-leads.js';
import { describeEachDatabase } from '../../../support/test-database.js';

describeEachDatabase("a PII key rotation keeps publishers' postback signing secrets", (database) => {
  const k1 = piiKey('k1');
  const k2 = piiKey('k2');
  let stack: TestDistribution | undefined;

  const running = () => {
    if (!stack) throw new Error('no service running');
    return stack;
  };
  const auth = () => bearer(running().service.adminToken);
  const restartWith = async (piiKeys: string) => {
    await stack?.close();
    stack = await startTestDistribution(database(), { env: { LEADFLOW_PII_KEYS: piiKeys } });
  };
  const secretOf = async (publisherId: string) =>
    (await call(running().admin.getPublisherPostback.bind(running().admin), { publisherId }, auth())).postback!
      .signingSecret;
  after(() => stack?.close());

  it('re-encrypts the secrets under the new key, so the old key can be dropped', async () => {
    await restartWith(k1);
    const { id } = await running().createPublisher();
    const secret = await secretOf(id);
    const stored = () =>
      running()
        .service.db.selectFrom('publisher_postbacks')
        .select('signing_secret')
        .where('publisher_id', '=', id)
        .executeTakeFirstOrThrow();
    expect(PiiCipher.keyIdOf((await stored()).signing_secret)).to.equal('k1');
    expect((await stored()).signing_secret).not.to.include(secret);

    await restartWith(`${k2},${k1}`);
    const run = await call(running().admin.reencryptSensitiveData.bind(running().admin), { batchSize: 0 }, auth());
    expect(Number(run.reencrypted)).to.equal(1);
    expect(PiiCipher.keyIdOf((await stored()).signing_secret)).to.equal('k2');

    await restartWith(k2);
    expect(await secretOf(id)).to.equal(secret);
  });
});
