import { StatusError } from '@leadflow/distribution/src/errors';
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
