import { PiiCipher } from '@leadflow/distribution/src/security/pii-cipher';
import { PiiLifecycle } from '@leadflow/distribution/src/security/pii-lifecycle';
import { type PurgeSchedule, schedulePurge } from '@leadflow/distribution/src/security/pii-purge-schedule';
import { ConfigError, loadDistributionConfig } from '@leadflow/service-kit/config';
import { createLogger } from '@leadflow/service-kit/logger';
import { expect } from 'chai';
import { startTestDistribution, type TestDistribution } from '../../../support/distribution.js';
import { age, leadRows, personLead, piiKey, submitLead } from '../../../support/pii-leads.js';
import { describeEachDatabase } from '../../../support/test-database.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('LEADFLOW_PII_RETENTION_DAYS', () => {
  it('is off when unset or empty', () => {
    expect(loadDistributionConfig({}).piiRetentionDays).to.equal(undefined);
    expect(loadDistributionConfig({ LEADFLOW_PII_RETENTION_DAYS: '' }).piiRetentionDays).to.equal(undefined);
  });

  it('takes a whole number of days from 1 to 3650', () => {
    expect(loadDistributionConfig({ LEADFLOW_PII_RETENTION_DAYS: '1' }).piiRetentionDays).to.equal(1);
    expect(loadDistributionConfig({ LEADFLOW_PII_RETENTION_DAYS: '3650' }).piiRetentionDays).to.equal(3650);
    for (const value of ['0', '3651', '-5', '30.5', 'thirty']) {
      expect(() => loadDistributionConfig({ LEADFLOW_PII_RETENTION_DAYS: value }), value).to.throw(
        ConfigError,
        /^LEADFLOW_PII_RETENTION_DAYS must be/,
      );
    }
  });
});

describeEachDatabase('PII purge schedule', (database) => {
  let stack: TestDistribution;
  let key: string;
  let schedule: PurgeSchedule | undefined;

  const db = () => stack.service.db;
  /** An old lead (40 days) that a 30-day retention purges. */
  const oldLead = async (n: number) => {
    const leadId = await submitLead(stack, key, personLead(n).body);
    await age(db(), [leadId], 40);
    return leadId;
  };
  const isPurged = async (leadId: string) => (await leadRows(db(), [leadId]))[0].sensitive_purged_at !== null;
  const purgedSoon = async (leadId: string) => {
    for (let waited = 0; waited < 5000 && !(await isPurged(leadId)); waited += 20) await sleep(20);
    return isPurged(leadId);
  };

  before(async () => {
    // The service's own schedule, on: it starts and closes cleanly; its first run is a minute away.
    stack = await startTestDistribution(database(), { env: { LEADFLOW_PII_RETENTION_DAYS: '30' } });
    ({ key } = await stack.createPublisher());
  });
  afterEach(async () => {
    await schedule?.stop();
  });
  after(async () => {
    await stack?.close();
  });

  const start = () => {
    const lifecycle = new PiiLifecycle(db(), new PiiCipher(piiKey('k1')));
    schedule = schedulePurge(lifecycle, {
      retentionDays: 30,
      logger: createLogger('test', 'silent'),
      firstRunMs: 10,
      everyMs: 50,
    });
  };

  it('purges shortly after start, then again at every interval, leaving recent leads alone', async () => {
    const first = await oldLead(1);
    const recent = await submitLead(stack, key, personLead(2).body);
    start();
    expect(await purgedSoon(first)).to.equal(true);
    const second = await oldLead(3);
    expect(await purgedSoon(second)).to.equal(true);
    expect(await isPurged(recent)).to.equal(false);
  });

  it('runs no more once stopped', async () => {
    start();
    await schedule!.stop();
    const leadId = await oldLead(4);
    await sleep(200);
    expect(await isPurged(leadId)).to.equal(false);
  });
});
