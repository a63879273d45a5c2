import type { BuyerDefinition, PriceChangeRule } from '@leadflow/distribution/src/buyers/definition/buyer-definition';
import { parseBuyerDocument } from '@leadflow/distribution/src/buyers/definition/parse-buyers';
import type { BuyerCallResult } from '@leadflow/distribution/src/buyers/integration/buyer-call';
import { leadFacts } from '@leadflow/distribution/src/buyers/rules/lead-facts';
import { chargeForPost } from '@leadflow/distribution/src/buyers/rules/price-change';
import { expect } from 'chai';
import { leadInput } from '../../../../support/buyer-documents.js';

const FACTS = leadFacts(leadInput(), 'UTC');

function bidder(priceChange?: PriceChangeRule, mode: 'ping_post' | 'direct_post' = 'ping_post'): BuyerDefinition {
  const reply = { accepted: { path: '$.ok', equals: 'yes' }, price: '$.price' };
  const document = {
    name: 'bidder',
    pricing: { type: 'bid' },
    integration: {
      ...(mode === 'ping_post'
        ? { ping: { url: 'https://b.example/ping', mapping: { state: 'state' }, response: reply } }
        : {}),
      post: {
        url: 'https://b.example/post',
        mapping: { ssn: 'ssn' },
        response: { ...reply, ...(priceChange ? { priceChange } : {}) },
      },
    },
  };
  const parsed = parseBuyerDocument(document);
  if ('errors' in parsed) return expect.fail(JSON.stringify(parsed.errors));
  return parsed.buyers[0];
}

function accepted(priceCents?: number): BuyerCallResult {
  return {
    outcome: 'accepted',
    httpStatus: 200,
    latencyMs: 5,
    reply: { outcome: 'accepted', ...(priceCents === undefined ? {} : { priceCents }) },
  };
}

describe('chargeForPost: a post answer naming another price than the bid', () => {
  it('charges the lower of bid and answer by default, so no invoice exceeds what the buyer said', () => {
    expect(chargeForPost(bidder(), FACTS, 2000, accepted(1500))).to.equal(1500);
    expect(chargeForPost(bidder(), FACTS, 2000, accepted(2500))).to.equal(2000);
    expect(chargeForPost(bidder('accept_lower'), FACTS, 2000, accepted(1500))).to.equal(1500);
  });

  it('charges the bid under use_bid, and sells at neither under reject', () => {
    expect(chargeForPost(bidder('use_bid'), FACTS, 2000, accepted(1500))).to.equal(2000);
    expect(chargeForPost(bidder('reject'), FACTS, 2000, accepted(1500))).to.equal(undefined);
    expect(chargeForPost(bidder('reject'), FACTS, 2000, accepted(2500))).to.equal(undefined);
  });

  it('keeps the bid when the answer names it or names no price', () => {
    for (const rule of ['accept_lower', 'use_bid', 'reject'] as const) {
      expect(chargeForPost(bidder(rule), FACTS, 2000, accepted(2000)), rule).to.equal(2000);
      expect(chargeForPost(bidder(rule), FACTS, 2000, accepted()), rule).to.equal(2000);
    }
  });

  it('prices a direct post by its answer, as before', () => {
    expect(chargeForPost(bidder(undefined, 'direct_post'), FACTS, undefined, accepted(1234))).to.equal(1234);
    expect(
      chargeForPost(bidder(undefined, 'direct_post'), FACTS, undefined, {
        outcome: 'rejected',
        httpStatus: 200,
        latencyMs: 1,
        reply: { outcome: 'rejected' },
      }),
    ).to.equal(undefined);
  });
});
