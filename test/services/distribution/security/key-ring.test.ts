import { expect } from 'chai';
import { startTestDistribution } from '../../../support/distribution.js';
import { piiKey } from '../../../support/pii-leads.js';
import { describeEachDatabase, productionSecretsEnv } from '../../../support/test-database.js';

describeEachDatabase('key check values: a ring that does not match the data is refused at start', (database) => {
  const secrets = productionSecretsEnv();
  const k2 = piiKey('k2');
  const startWith = (env: Record<string, string>) => startTestDistribution(database(), { env: { ...secrets, ...env } });
  const refusal = (env: Record<string, string>) =>
    startWith(env).then(
      async (started) => {
        await started.close();
        return 'started';
      },
      (error: Error) => error.message,
    );

  before(async () => {
    // A first start records the check values; no lead is needed for them.
    await (await startWith({})).close();
  });

  it('refuses another HMAC key', async () => {
    expect(await refusal({ LEADFLOW_HMAC_KEY: productionSecretsEnv().LEADFLOW_HMAC_KEY! })).to.match(
      /^the key ring does not match this database: the HMAC key is not the one its duplicate-check hashes were made with; start with the secrets/,
    );
  });

  it('refuses another key under a recorded key id, naming the id and no key', async () => {
    const other = piiKey('k1');
    const message = await refusal({ LEADFLOW_PII_KEYS: other });
    expect(message).to.match(
      /^the key ring does not match this database: PII key k1 is not the key of that id its leads were encrypted with/,
    );
    expect(message).not.to.include(other.slice(3));
  });

  it('accepts a rotation: a new key first, the old one after it; then the new one alone', async () => {
    await (await startWith({ LEADFLOW_PII_KEYS: `${k2},${secrets.LEADFLOW_PII_KEYS}` })).close();
    await (await startWith({ LEADFLOW_PII_KEYS: k2 })).close();
  });

  it('refuses a ring that holds none of the recorded keys', async () => {
    expect(await refusal({ LEADFLOW_PII_KEYS: piiKey('k9') })).to.match(
      /^the key ring does not match this database: its leads are encrypted under PII key k1, k2 and the ring holds none of them/,
    );
  });
});
