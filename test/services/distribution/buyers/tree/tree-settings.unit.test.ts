import { parseBuyerDocument } from '@leadflow/distribution/src/buyers/definition/parse-buyers';
import { EffectiveTree, effectiveSettings } from '@leadflow/distribution/src/buyers/tree/tree-settings';
import { expect } from 'chai';
import { minimalBuyer } from '../../../../support/buyer-documents.js';

function parsed(document: unknown) {
  const result = parseBuyerDocument(document);
  if ('errors' in result) return expect.fail(`expected a document, got ${JSON.stringify(result.errors)}`);
  return result;
}

function errorsOf(document: unknown): string[] {
  const result = parseBuyerDocument(document);
  if (!('errors' in result)) return expect.fail('expected errors');
  return result.errors.map(({ path, message }) => `${path}: ${message}`);
}

describe("the buyers document's tree", () => {
  it('reads routing, the tree-wide window and tier windows, tiers in order', () => {
    const document = parsed({
      buyers: [minimalBuyer()],
      tree: {
        routing: 'price_groups',
        pingWindowMs: 250,
        tiers: [
          { tier: 3, pingWindowMs: 600 },
          { tier: 2, pingWindowMs: 400 },
        ],
      },
    });
    expect(document.buyers).to.have.length(1);
    expect(document.tree).to.deep.equal({
      routing: 'price_groups',
      pingWindowMs: 250,
      tiers: [
        { tier: 2, pingWindowMs: 400 },
        { tier: 3, pingWindowMs: 600 },
      ],
    });
  });

  it('may stand alone, be empty (every setting back to the environment), or be left out (nothing set)', () => {
    expect(parsed({ tree: { routing: 'auction' } })).to.deep.equal({
      buyers: [],
      tree: { routing: 'auction', tiers: [] },
    });
    expect(parsed({ tree: {}, buyers: [minimalBuyer()] }).tree).to.deep.equal({ tiers: [] });
    expect(parsed({ tree: null, buyers: [minimalBuyer()] })).not.to.have.property('tree');
    expect(parsed({ buyers: [minimalBuyer()] })).not.to.have.property('tree');
  });

  it('reports every mistake with its path, never the value', () => {
    expect(
      errorsOf({
        tree: {
          routing: 'waterfall',
          pingWindowMs: 0,
          tiers: [{ tier: 2, pingWindowMs: 100 }, { tier: 2, pingWindowMs: 700_000 }, { pingWindowMs: 100 }, 'x'],
          windowMs: 100,
        },
      }),
    ).to.deep.equal([
      'tree.windowMs: unknown key; expected one of: routing, pingWindowMs, tiers',
      'tree.routing: must be one of: strict_tiers, price_groups, auction',
      'tree.pingWindowMs: must be a whole number from 1 to 600000',
      'tree.tiers[1].pingWindowMs: must be a whole number from 1 to 600000',
      'tree.tiers[2].tier: is required',
      'tree.tiers[3]: must be an object with tier and pingWindowMs',
    ]);
  });

  it('refuses a tier listed twice', () => {
    const tiers = [
      { tier: 2, pingWindowMs: 100 },
      { tier: 2, pingWindowMs: 200 },
    ];
    expect(errorsOf({ tree: { tiers } })).to.deep.equal(['tree.tiers[1].tier: repeats the tier of tree.tiers[0]']);
  });

  it('is applied over the environment: a tier window, else the tree window, else the environment, else learned', () => {
    const defaults = { routing: 'strict_tiers' as const, pingWindowMs: 300 };
    const tree = new EffectiveTree({ routing: 'auction', tiers: [{ tier: 2, pingWindowMs: 800 }] }, defaults);
    expect(tree.routing).to.equal('auction');
    expect([tree.pingWindowMs(1), tree.pingWindowMs(2)]).to.deep.equal([300, 800]);
    const learned = new EffectiveTree({ tiers: [] }, { routing: 'price_groups', pingWindowMs: undefined });
    expect([learned.routing, learned.pingWindowMs(1)]).to.deep.equal(['price_groups', undefined]);
    expect(effectiveSettings({ pingWindowMs: 150, tiers: [] }, defaults)).to.deep.equal({
      routing: 'strict_tiers',
      pingWindowMs: 150,
      tiers: [],
    });
  });
});
