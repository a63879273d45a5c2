import { parseEndpoints, parseSimulatorConfig, SimulatorConfigError } from '@leadflow/simulator';
import { expect } from 'chai';

function issuesOf(run: () => unknown): string[] {
  try {
    run();
  } catch (error) {
    if (error instanceof SimulatorConfigError) return error.issues;
    throw error;
  }
  throw new Error('expected a SimulatorConfigError');
}

describe('simulator config', () => {
  it('fills in every default', () => {
    const [endpoint] = parseEndpoints([{ path: '/a/post', kind: 'direct_post', price: { fixed: 10 } }]);
    expect(endpoint).to.deep.equal({
      kind: 'direct_post',
      path: '/a/post',
      format: 'json',
      acceptRate: 1,
      latencyMs: { fixed: 0 },
      errors: { status500: 0, status503: 0, hang: 0, reset: 0, html: 0, truncated: 0, garbage: 0 },
      requireAuth: undefined,
      replies: {},
      redirectUrl: undefined,
      duplicateCheck: false,
      price: { fixed: 10 },
    });
  });

  it('names every mistake by its path', () => {
    const issues = issuesOf(() =>
      parseEndpoints([
        { path: 'no-slash', kind: 'direct_post', price: { uniform: [40, 5] }, acceptRate: 1.5 },
        { path: '/b/ping', kind: 'ping', bid: { normal: { mean: 1, sd: 1 } }, errors: { hang: 0.7, reset: 0.7 } },
        { path: '/c/post', kind: 'post', ping: '/nowhere', format: 'csv', colour: 'red' },
        { path: '/d', kind: 'auction' },
        { path: '/e/post', kind: 'direct_post', price: { fixed: 1, uniform: [1, 2] }, requireAuth: { type: 'bearer' } },
      ]),
    );
    expect(issues).to.include.members([
      'endpoints[0].path: must start with / and not with /_simulator/',
      'endpoints[0].acceptRate: must be from 0 to 1',
      'endpoints[0].price.uniform: min must not exceed max',
      'endpoints[1].bid.normal.min: must be a number',
      'endpoints[1].bid.normal.max: must be a number',
      'endpoints[1].errors: rates must add up to at most 1',
      'endpoints[2].format: must be one of json, xml, text',
      'endpoints[3].kind: must be one of direct_post, ping, post',
      'endpoints[4].price: must have exactly one of fixed, uniform, normal',
      'endpoints[4].requireAuth.token: must be a non-empty string',
    ]);
    expect(issues.some((issue) => issue.startsWith('endpoints[2].colour: unknown key'))).to.equal(true);
  });

  it('refuses a post whose ping is not a ping endpoint, and a path configured twice', () => {
    const issues = issuesOf(() =>
      parseEndpoints([
        { path: '/a/post', kind: 'direct_post', price: { fixed: 10 } },
        { path: '/a/post', kind: 'direct_post', price: { fixed: 10 } },
        { path: '/b/post', kind: 'post', ping: '/a/post' },
      ]),
    );
    expect(issues).to.deep.equal([
      'endpoints[1].path: /a/post is configured twice',
      'endpoints[2].ping: /a/post is not a ping endpoint of this config',
    ]);
  });

  it("refuses an own reply for another kind's verdict, and a placeholder that verdict does not fill", () => {
    const issues = issuesOf(() =>
      parseEndpoints([
        { path: '/a/ping', kind: 'ping', bid: { fixed: 1 }, replies: { accepted: 'OK', noBid: 'NO {price}' } },
        {
          path: '/a/post',
          kind: 'direct_post',
          price: { fixed: 1 },
          replies: { rejected: '', accepted: '{"p": {prise}}' },
        },
      ]),
    );
    expect(issues).to.deep.equal([
      'endpoints[0].replies.accepted: unknown key (expected one of bid, noBid)',
      'endpoints[0].replies.noBid: unknown placeholder {price} (expected {reason})',
      'endpoints[1].replies.accepted: unknown placeholder {prise} (expected {price}, {leadRef}, {redirect})',
      'endpoints[1].replies.rejected: must be a non-empty string',
    ]);
  });

  it('refuses paths under the admin API', () => {
    expect(
      issuesOf(() => parseEndpoints([{ path: '/_simulator/stats', kind: 'direct_post', price: { fixed: 1 } }])),
    ).to.deep.equal(['endpoints[0].path: must start with / and not with /_simulator/']);
  });

  it('reads a whole config with a seed', () => {
    expect(parseSimulatorConfig({ seed: 9, endpoints: [] })).to.deep.equal({ seed: 9, endpoints: [] });
    expect(parseSimulatorConfig({ seed: 9, leadKey: 'clickid', endpoints: [] })).to.deep.equal({
      seed: 9,
      leadKey: 'clickid',
      endpoints: [],
    });
    expect(issuesOf(() => parseSimulatorConfig({ seed: 1.5, endpoint: [] }))).to.deep.equal([
      'config.endpoint: unknown key (expected one of seed, leadKey, endpoints)',
      'seed: must be a whole number',
      'endpoints: must be a list of endpoints',
    ]);
  });
});
