import type {
  HttpExchange,
  Integration,
  ResponseParser,
} from '@leadflow/distribution/src/buyers/definition/buyer-definition';
import {
  type EndpointConfig,
  PING_MAPPING,
  type ReplyFormat,
  type Simulator,
  simulatorIntegration,
  startSimulator,
} from '@leadflow/simulator';
import { DOMParser } from '@xmldom/xmldom';
import { expect } from 'chai';
import xpath from 'xpath';
import { SEED } from '../../support/simulator.js';

/** Every lead field filled, as the engine would hold a lead. */
const LEAD_VALUES: Record<string, string | number> = {
  leadId: 'lead-42',
  loanAmount: '1500.00',
  ssn: '123456789',
  firstName: 'Jane',
  lastName: 'Doe',
  email: 'jane.doe@example.com',
  dob: '1990-04-01',
  address: '1 Main St',
  city: 'Dallas',
  state: 'TX',
  zip: '75001',
  homePhone: '2145550100',
  cellPhone: '2145550101',
  workPhone: '2145550102',
  userIp: '203.0.113.9',
  clickid: 'c-1',
  incomeType: 'employment',
  incomeNetMonthly: '3200.00',
  incomePaymentFrequency: 'biweekly',
  bankAba: '011000015',
  bankAccountNumber: '000123456',
  driversLicenseNumber: 'D1234567',
  creditRating: 'fair',
  loanPurpose: 'bills',
  age: 36,
};

/** A minimal stand-in for the engine: body from the mapping, credentials, reply read by the parser's locators. */
async function call(
  exchange: HttpExchange,
  leadId: string,
  pingReference?: string,
): Promise<Record<string, string | boolean | undefined>> {
  const body: Record<string, string | number> = {};
  for (const [key, source] of Object.entries(exchange.mapping)) {
    const value =
      'value' in source
        ? source.value
        : source.field === 'leadId'
          ? leadId
          : source.field === 'pingReference'
            ? pingReference
            : LEAD_VALUES[source.field];
    if (value !== undefined) body[key] = value as string | number;
  }
  const headers: Record<string, string> = {
    'content-type': exchange.format === 'json' ? 'application/json' : 'application/x-www-form-urlencoded',
  };
  if (exchange.auth?.type === 'bearer') headers.authorization = `Bearer ${exchange.auth.token}`;
  if (exchange.auth?.type === 'basic') {
    headers.authorization = `Basic ${Buffer.from(`${exchange.auth.username}:${exchange.auth.password}`).toString('base64')}`;
  }
  const response = await fetch(exchange.url, {
    method: exchange.method,
    headers,
    body:
      exchange.format === 'json'
        ? JSON.stringify(body)
        : new URLSearchParams(Object.entries(body).map(([k, v]) => [k, String(v)])).toString(),
  });
  expect(response.status).to.equal(200);
  return read(exchange.response, await response.text());
}

function read(parser: ResponseParser, text: string): Record<string, string | boolean | undefined> {
  const locate = locator(parser.format, text);
  const outcome = locate(parser.accepted.path);
  const accepted =
    'equals' in parser.accepted
      ? outcome === parser.accepted.equals
      : 'in' in parser.accepted
        ? parser.accepted.in.includes(outcome ?? '')
        : new RegExp(parser.accepted.matches).test(outcome ?? '');
  return {
    accepted,
    price: parser.price && locate(parser.price.path),
    reason: parser.reason && locate(parser.reason.path),
    reference: parser.reference && locate(parser.reference.path),
    redirectUrl: parser.redirectUrl && locate(parser.redirectUrl.path),
  };
}

function locator(format: ReplyFormat, text: string): (path: string) => string | undefined {
  const nonEmpty = (value: string | undefined) => (value === undefined || value === '' ? undefined : value);
  if (format === 'json') {
    const root = JSON.parse(text);
    return (path) => {
      const value = path
        .replace(/^\$\./, '')
        .split('.')
        .reduce<unknown>((node, key) => (node as Record<string, unknown> | null)?.[key], root);
      return typeof value === 'string' || typeof value === 'number' ? nonEmpty(String(value)) : undefined;
    };
  }
  if (format === 'xml') {
    const document = new DOMParser().parseFromString(text, 'text/xml');
    return (path) => nonEmpty(xpath.select(`string(${path})`, document as unknown as Node) as string);
  }
  return (path) => nonEmpty(new RegExp(path).exec(text)?.[1]);
}

const FORMATS: ReplyFormat[] = ['json', 'xml', 'text'];

describe('simulator integrations for leadflow buyers', () => {
  let simulator: Simulator;
  const endpoints: EndpointConfig[] = FORMATS.flatMap((format): EndpointConfig[] => [
    {
      path: `/${format}/direct`,
      kind: 'direct_post',
      format,
      price: { fixed: 12.5 },
      redirectUrl: 'https://l.example/r?ref={leadRef}&x=1',
    },
    { path: `/${format}/direct-no`, kind: 'direct_post', format, price: { fixed: 12.5 }, acceptRate: 0 },
    {
      path: `/${format}/ping`,
      kind: 'ping',
      format,
      bid: { fixed: 23.1 },
      requireAuth: { type: 'bearer', token: 't0k' },
    },
    {
      path: `/${format}/post`,
      kind: 'post',
      format,
      ping: `/${format}/ping`,
      requireAuth: { type: 'bearer', token: 't0k' },
    },
    { path: `/${format}/ping-no`, kind: 'ping', format, bid: { fixed: 1 }, acceptRate: 0 },
    { path: `/${format}/post-no`, kind: 'post', format, ping: `/${format}/ping-no` },
  ]);

  before(async () => {
    simulator = await startSimulator({ endpoints, seed: SEED });
  });
  after(() => simulator.close());

  for (const format of FORMATS) {
    for (const bodyFormat of ['json', 'form'] as const) {
      it(`direct post, ${format} replies, ${bodyFormat} body: accepted and rejected read right`, async () => {
        const integration: Integration = simulatorIntegration(simulator.url, endpoints, `/${format}/direct`, {
          bodyFormat,
        });
        expect(integration).to.include({ mode: 'direct_post', ping: undefined, local: true });
        expect(integration.post.mapping).to.not.have.property('pingRef');
        const sold = await call(integration.post, 'lead-1');
        expect(sold).to.include({ accepted: true, price: '12.50', reason: undefined });
        expect(sold.reference).to.match(/^SIM-\d{6}$/);
        expect(sold.redirectUrl).to.equal(`https://l.example/r?ref=${sold.reference}&x=1`);
        const refused = await call(
          simulatorIntegration(simulator.url, endpoints, `/${format}/direct-no`).post,
          'lead-1',
        );
        expect(refused).to.deep.equal({
          accepted: false,
          price: undefined,
          reason: 'declined',
          reference: undefined,
          redirectUrl: undefined,
        });
      });

      it(`ping-post, ${format} replies, ${bodyFormat} body: bid read, post accepted at it`, async () => {
        const integration = simulatorIntegration(simulator.url, endpoints, `/${format}/post`, {
          bodyFormat,
          timeoutMs: 700,
        });
        expect(integration).to.include({ mode: 'ping_post', timeoutMs: 700 });
        expect(integration.ping?.auth).to.deep.equal({ type: 'bearer', token: 't0k' });
        const leadId = `lead-${format}-${bodyFormat}`;
        const bid = await call(integration.ping!, leadId);
        expect(bid).to.include({ accepted: true, price: '23.10', redirectUrl: undefined });
        expect(bid.reference).to.match(/^PING-\d{6}$/);
        expect(integration.post.mapping.pingRef).to.deep.equal({ field: 'pingReference', transform: [] });
        expect(await call(integration.post, leadId, bid.reference as string)).to.include({
          accepted: true,
          price: '23.10',
        });
      });
    }

    it(`ping-post, ${format} replies: no bid read as not accepted, with its reason`, async () => {
      const integration = simulatorIntegration(simulator.url, endpoints, `/${format}/post-no`);
      expect(await call(integration.ping!, 'lead-nobid')).to.include({
        accepted: false,
        price: undefined,
        reason: 'no bid',
      });
      expect(await call(integration.post, 'lead-nobid')).to.include({ accepted: false, reason: 'no matching ping' });
    });
  }

  it('pings carry no personal data', async () => {
    const before = simulator.stats().endpoints['/json/ping'].pings;
    await call(simulatorIntegration(simulator.url, endpoints, '/json/post').ping!, 'lead-pii');
    const stats = simulator.stats().endpoints['/json/ping'];
    expect(stats.pings).to.equal(before + 1);
    expect(stats.piiPings).to.equal(0);
    expect(Object.keys(PING_MAPPING)).to.include('leadId');
  });

  it('refuses a path that is not a post endpoint', () => {
    expect(() => simulatorIntegration(simulator.url, endpoints, '/json/ping')).to.throw(/not a post endpoint/);
  });
});
