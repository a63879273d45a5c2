import { StatusError } from '@leadflow/distribution/src/errors';
import { earlierFingerprintSource, validateLead } from '@leadflow/distribution/src/leads/validation';
import { Lead } from '@leadflow/proto/leadflow/distribution/v1/distribution';
import { expect } from 'chai';
import { type InMemoryEngine, inMemoryEngine } from '../../../support/in-memory-engine.js';
import { validLeadBody } from '../../../support/leads.js';

describe('intake, in process', () => {
  let engine: InMemoryEngine;
  let key: string;

  beforeEach(async () => {
    engine = await inMemoryEngine();
    key = await engine.publisherKey();
    await engine.applyBuyers('two-tiers');
    engine.buyers.on('https://first-tier.example/leads', () => ({ outcome: 'accepted' }));
  });

  afterEach(() => engine.close());

  const lead = (body: Record<string, unknown>) => Lead.fromPartial(body as Partial<Lead>);
  const submit = (body: Record<string, unknown>, nonStringFields: string[] = []) =>
    engine.intake.submit(key, lead(body), nonStringFields, Number.POSITIVE_INFINITY);

  it('refuses an unknown key before reading the lead', async () => {
    const error = await engine.intake
      .submit(`lfpk_${'A'.repeat(43)}`, lead(validLeadBody()), [], Number.POSITIVE_INFINITY)
      .catch((caught: unknown) => caught);
    expect(error).to.be.instanceOf(StatusError).and.to.include({ code: 'unauthenticated' });
    expect(engine.buyers.calls).to.have.length(0);
  });

  it('answers every invalid field at once, stores nothing and calls no buyer', async () => {
    const { outcome } = await submit(validLeadBody({ ssn: '12345', email: '', price: 12 }), ['price']);

    expect(outcome).to.deep.equal({
      kind: 'invalid',
      errors: { ssn: 'must be 9 digits', email: 'is required', price: 'must be a string' },
      clickidReused: false,
    });
    expect(engine.buyers.calls).to.have.length(0);
    expect(await engine.db.selectFrom('leads').select('id').execute()).to.have.length(0);
  });

  it('stores a sold lead with its personal fields encrypted', async () => {
    const { outcome } = await submit(validLeadBody({ ssn: '219-09-9999' }));

    expect(outcome.kind).to.equal('sold');
    const row = await engine.db.selectFrom('leads').selectAll().executeTakeFirstOrThrow();
    expect(row.status).to.equal('sold');
    expect(JSON.stringify(row)).not.to.include('219099999');
    expect(JSON.parse(row.fields)).to.include({ state: 'CA', zip: '94102' });
  });

  it('replays the first answer for a retry of the same lead, without selling it again', async () => {
    const body = validLeadBody();
    const first = await submit(body);
    const retry = await submit({ ...body, firstName: '  Maria ' });

    expect(retry).to.deep.include({ outcome: first.outcome, replayed: true });
    expect(engine.buyers.calls).to.have.length(1);
  });

  it('replays a live lead whether its testMode is "0" or absent, in either order', async () => {
    for (const [first, second] of [
      [{}, { testMode: '0' }],
      [{ testMode: '0' }, {}],
      [{ testMode: '' }, { testMode: ' 0 ' }],
    ]) {
      const body = validLeadBody(first);
      const answer = await submit(body);
      const retry = await submit({ ...body, testMode: undefined, ...second });
      expect(retry, JSON.stringify([first, second])).to.deep.include({ outcome: answer.outcome, replayed: true });
    }
    expect(engine.buyers.calls).to.have.length(3);
  });

  it('replays a lead stored with testMode "0" or an IPv6 address as sent before spellings compared equal', async () => {
    const body = validLeadBody({ testMode: '0', userIp: '2001:DB8:0::7' });
    const first = await submit(body);
    const validation = validateLead(lead(body), [], new Date());
    if (!validation.ok) expect.fail(JSON.stringify(validation.errors));
    const earlier = engine.hasher.hash('lead', earlierFingerprintSource(validation.lead)!);
    await engine.db.updateTable('leads').set({ fingerprint: earlier }).execute();

    expect(await submit(body)).to.deep.include({ outcome: first.outcome, replayed: true });
    expect((await submit({ ...body, testMode: '1' })).outcome.kind).to.equal('invalid');
    expect(engine.buyers.calls).to.have.length(1);
  });

  it('replays a lead retried with its IPv6 address and tPar written another way', async () => {
    const body = validLeadBody({ userIp: '2001:db8::7', tPar: 'tPar[affiliate]=aff42&tPar[sub]=spring sale' });
    const first = await submit(body);
    const retry = await submit({
      ...body,
      userIp: '2001:0DB8:0000:0000:0000:0000:0000:0007',
      tPar: 'tPar%5Bsub%5D=spring+sale&tPar%5Baffiliate%5D=aff42',
    });
    expect(retry).to.deep.include({ outcome: first.outcome, replayed: true });
    expect(engine.buyers.calls).to.have.length(1);
  });

  it('refuses the clickid of a live lead for the same lead in test mode', async () => {
    const body = validLeadBody({ testMode: '0' });
    await submit(body);
    const { outcome } = await submit({ ...body, testMode: '1' });
    expect(outcome).to.deep.include({ kind: 'invalid', clickidReused: true });
  });

  it('refuses a clickid used before for a different lead', async () => {
    const body = validLeadBody();
    await submit(body);
    const { outcome } = await submit({ ...body, loanAmount: '2500' });

    expect(outcome).to.deep.equal({
      kind: 'invalid',
      errors: { clickid: 'was already used for a different lead' },
      clickidReused: true,
    });
    expect(engine.buyers.calls).to.have.length(1);
  });

  it('rejects a lead no buyer is buying, with the reason', async () => {
    const bare = await inMemoryEngine();
    try {
      const publisherKey = await bare.publisherKey();
      const { outcome } = await bare.intake.submit(publisherKey, lead(validLeadBody()), [], Number.POSITIVE_INFINITY);
      expect(outcome).to.include({ kind: 'rejected', reason: 'No buyer is buying leads like this one right now' });
    } finally {
      await bare.close();
    }
  });
});
