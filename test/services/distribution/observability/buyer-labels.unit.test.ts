import { BuyerNameLabels, MAX_BUYER_NAME_LABELS } from '@leadflow/distribution/src/observability/buyer-labels';
import { expect } from 'chai';

describe('buyer_name metric label', () => {
  it('is the buyer name, kept to the buyer file alphabet and 64 characters, and "unknown" for an unnamed id', () => {
    const names = new Map([
      ['buy_1', 'acme-lending'],
      ['buy_2', 'Old "name" {with} spaces'],
      ['buy_3', 'x'.repeat(100)],
    ]);
    const labels = new BuyerNameLabels((id) => names.get(id));
    expect(labels.of('buy_1')).to.deep.equal({ buyer_id: 'buy_1', buyer_name: 'acme-lending' });
    expect(labels.label('buy_2')).to.equal('Old__name___with__spaces');
    expect(labels.label('buy_3')).to.have.length(64);
    expect(labels.label('buy_9')).to.equal('unknown');
  });

  it(`labels at most ${MAX_BUYER_NAME_LABELS} distinct names; later ones are "other", known ones keep theirs`, () => {
    const labels = new BuyerNameLabels((id) => `name-${id}`);
    for (let i = 0; i < MAX_BUYER_NAME_LABELS; i += 1) expect(labels.label(String(i))).to.equal(`name-${i}`);
    expect(labels.label('one-too-many')).to.equal('other');
    expect(labels.label('7')).to.equal('name-7');
  });
});
