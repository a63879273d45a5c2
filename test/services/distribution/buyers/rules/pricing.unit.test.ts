import type { Pricing } from '@leadflow/distribution/src/buyers/definition/buyer-definition';
import { leadFacts } from '@leadflow/distribution/src/buyers/rules/lead-facts';
import { priceFor } from '@leadflow/distribution/src/buyers/rules/pricing';
import { expect } from 'chai';
import { leadInput } from '../../../../support/buyer-documents.js';

const illinois = leadFacts(leadInput(), 'UTC');
const californiaBigLoan = leadFacts(leadInput({ loanAmountCents: 300_000, fields: { state: 'CA' } }), 'UTC');
const texas = leadFacts(leadInput({ fields: { state: 'TX' } }), 'UTC');

describe('priceFor', () => {
  it('is the fixed price, whatever the bid', () => {
    expect(priceFor({ type: 'fixed', priceCents: 2500 }, illinois, undefined)).to.equal(2500);
    expect(priceFor({ type: 'fixed', priceCents: 2500 }, illinois, 9900)).to.equal(2500);
  });

  describe('rules', () => {
    const pricing: Pricing = {
      type: 'rules',
      defaultCents: 1500,
      rules: [
        { when: { field: 'state', equals: 'CA' }, priceCents: 3000 },
        { when: { field: 'loanAmount', range: { min: 2000 } }, priceCents: 2200 },
        {
          when: {
            any: [
              { field: 'state', equals: 'IL' },
              { field: 'state', equals: 'CA' },
            ],
          },
          priceCents: 1800,
        },
      ],
    };

    it('takes the first rule that matches', () => {
      expect(priceFor(pricing, californiaBigLoan, undefined)).to.equal(3000);
      expect(priceFor(pricing, illinois, undefined)).to.equal(1800);
    });

    it('falls back to the default', () => {
      expect(priceFor(pricing, texas, undefined)).to.equal(1500);
    });
  });

  it('is the bid for a bid buyer, unknown before it bids', () => {
    expect(priceFor({ type: 'bid' }, illinois, 4150)).to.equal(4150);
    expect(priceFor({ type: 'bid' }, illinois, undefined)).to.equal(undefined);
  });
});
