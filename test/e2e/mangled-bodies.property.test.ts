import { LEAD_FIELDS } from '@leadflow/core/lead-fields';
import { expect } from 'chai';
import fc from 'fast-check';
import { startBuyerServer, type TestBuyerServer } from '../support/buyer-server.js';
import { testBuyer } from '../support/buyers.js';
import { validLeadBody } from '../support/leads.js';
import { startTestStack, type TestStack } from '../support/stack.js';
import { sqliteDatabase, type TestDatabase } from '../support/test-database.js';

const anyJsonValue = fc.oneof(
  fc.string(),
  fc.string({ unit: 'grapheme' }),
  fc.string({ unit: 'binary', maxLength: 300 }),
  fc.integer(),
  fc.double(),
  fc.boolean(),
  fc.constant(null),
  fc.array(fc.string(), { maxLength: 3 }),
  fc.dictionary(fc.string(), fc.string(), { maxKeys: 3 }),
  fc.constantFrom(
    '',
    ' ',
    '0',
    '-1',
    '1e9',
    'NaN',
    '9'.repeat(400),
    '\u0000',
    '<script>',
    "' OR 1=1 --",
    '%00',
    '\ud800',
  ),
);

/** A valid lead with some fields replaced, removed, or joined by unknown ones. */
const mangledLead = fc
  .record({
    replaced: fc.dictionary(fc.constantFrom(...LEAD_FIELDS), anyJsonValue, { maxKeys: 6 }),
    removed: fc.subarray([...LEAD_FIELDS], { maxLength: 5 }),
    extra: fc.dictionary(fc.string({ maxLength: 20 }), anyJsonValue, { maxKeys: 3 }),
  })
  .map(({ replaced, removed, extra }) => {
    const lead: Record<string, unknown> = { ...extra, ...validLeadBody(), ...replaced };
    for (const field of removed) delete lead[field];
    return JSON.stringify(lead);
  });

const rawBody = fc.oneof(
  mangledLead,
  fc.json(),
  fc.string({ maxLength: 500 }),
  fc.string({ unit: 'binary', maxLength: 500 }),
  fc.constantFrom(
    '',
    '{',
    '[]',
    'null',
    '{"__proto__": {"x": 1}}',
    '{"constructor": {"prototype": {}}}',
    '{"price": "1"}{"price": "2"}',
  ),
);

const contentType = fc.oneof(
  { weight: 8, arbitrary: fc.constant('application/json') },
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      'application/json; charset=utf-8',
      'text/plain',
      'application/x-www-form-urlencoded',
      'APPLICATION/JSON',
      '',
    ),
  },
);

describe('gateway and distribution service under generated and mangled bodies', function () {
  this.timeout(180_000);
  let database: TestDatabase;
  let buyers: TestBuyerServer;
  let stack: TestStack;
  let key: string;

  before(async () => {
    database = await sqliteDatabase();
    stack = await startTestStack(database);
    buyers = await startBuyerServer();
    buyers.behave('/buys-everything', { kind: 'accept' });
    await stack.distribution.applyBuyers([testBuyer('buys-everything', buyers.url('/buys-everything'))]);
    ({ key } = await stack.distribution.createPublisher(1_000_000));
  });
  after(async () => {
    await stack?.close();
    await database?.drop();
    await buyers?.close();
  });

  it('never answers 5xx and always answers a JSON body of the documented shape', async () => {
    const pathKey = fc.oneof(
      { weight: 6, arbitrary: fc.constant(key) },
      { weight: 1, arbitrary: fc.string({ maxLength: 80 }).map((text) => encodeURIComponent(text) || 'x') },
      {
        weight: 1,
        arbitrary: fc.constantFrom(`${key}x`, key.slice(0, -1), '%E0%A4%A', '..%2F..%2Fetc', 'a'.repeat(300)),
      },
    );
    await fc.assert(
      fc.asyncProperty(rawBody, contentType, pathKey, async (body, type, webmasterKey) => {
        const response = await stack.gateway.inject({
          method: 'POST',
          url: `/api/intake/${webmasterKey}`,
          headers: type ? { 'content-type': type } : {},
          payload: body,
        });
        expect(response.statusCode, body).to.be.below(500);
        const answer = response.json();
        if (response.statusCode === 200) {
          expect(answer.status).to.be.oneOf(['sold', 'rejected']);
          expect(answer.processingTime).to.be.a('number');
        } else {
          expect(answer.status).to.equal('error');
          expect(answer.errors ?? answer.message).to.exist;
        }
      }),
      { numRuns: 3000 },
    );
  });
});
