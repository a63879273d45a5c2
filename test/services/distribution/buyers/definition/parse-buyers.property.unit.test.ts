import { parseBuyerDocument } from '@leadflow/distribution/src/buyers/definition/parse-buyers';
import { expect } from 'chai';
import fc from 'fast-check';
import { parse } from 'yaml';
import { minimalBuyer } from '../../../../support/buyer-documents.js';

function expectWellFormed(document: unknown): void {
  const result = parseBuyerDocument(document);
  if ('errors' in result) {
    expect(result.errors).to.be.an('array').that.is.not.empty;
    for (const error of result.errors) {
      expect(error.path).to.be.a('string');
      expect(error.message).to.be.a('string').that.is.not.empty;
    }
  } else {
    expect(result.buyers).to.be.an('array').that.is.not.empty;
  }
}

/** A valid buyer with one value somewhere replaced by anything: mostly near misses, the hard case. */
const nearMiss = fc
  .tuple(fc.anything({ withNullPrototype: true, withObjectString: true }), fc.nat(), fc.nat())
  .map(([replacement, depthSeed, keySeed]) => {
    const document = JSON.parse(
      JSON.stringify(
        minimalBuyer({ filters: { all: [{ field: 'state', in: ['CA'] }] }, payout: { revenueShare: 0.8 } }),
      ),
    );
    let node: Record<string, unknown> = document;
    for (let depth = 0; depth <= depthSeed % 5; depth++) {
      const keys = Object.keys(node);
      const key = keys[(keySeed + depth) % keys.length];
      const child = node[key];
      if (depth === depthSeed % 5 || typeof child !== 'object' || child === null) {
        node[key] = replacement;
        break;
      }
      node = child as Record<string, unknown>;
    }
    return document;
  });

describe('parseBuyerDocument: properties', () => {
  it('never throws on anything, and answers buyers or errors with string paths', () => {
    fc.assert(
      fc.property(
        fc.anything({ withNullPrototype: true, withObjectString: true, withSparseArray: true }),
        (document) => {
          expectWellFormed(document);
          expectWellFormed({ buyers: [document] });
          expectWellFormed([document]);
        },
      ),
      { numRuns: 500 },
    );
  });

  it('never throws on any parsed YAML or JSON text', () => {
    fc.assert(
      fc.property(fc.oneof(fc.json(), fc.string()), (text) => {
        let document: unknown;
        try {
          document = parse(text, { logLevel: 'silent' });
        } catch {
          return;
        }
        expectWellFormed(document);
      }),
      { numRuns: 300 },
    );
  });

  it('never throws on a valid buyer with any one value replaced', () => {
    fc.assert(fc.property(nearMiss, expectWellFormed), { numRuns: 1000 });
  });
});
