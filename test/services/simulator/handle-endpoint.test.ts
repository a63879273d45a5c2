import { type EndpointConfig, startSimulator } from '@leadflow/simulator';
import { expect } from 'chai';
import { LEAD, PING, SEED, send, sendJson, useSimulator } from '../../support/simulator.js';

const XML_HEAD = '<?xml version="1.0" encoding="UTF-8"?>';

describe('simulator endpoints over HTTP', () => {
  describe('direct post', () => {
    const simulator = useSimulator([
      {
        path: '/json/buy',
        kind: 'direct_post',
        price: { fixed: 12.5 },
        redirectUrl: 'https://lender.example/go?ref={leadRef}&lead={leadId}&p={price}',
      },
      { path: '/json/refuse', kind: 'direct_post', price: { fixed: 12.5 }, acceptRate: 0 },
      {
        path: '/xml/buy',
        kind: 'direct_post',
        format: 'xml',
        price: { fixed: 7 },
        redirectUrl: 'https://lender.example/a?x=1&ref={leadRef}',
      },
      { path: '/xml/refuse', kind: 'direct_post', format: 'xml', price: { fixed: 7 }, acceptRate: 0 },
      { path: '/text/buy', kind: 'direct_post', format: 'text', price: { fixed: 30.1 } },
      { path: '/text/refuse', kind: 'direct_post', format: 'text', price: { fixed: 30.1 }, acceptRate: 0 },
      { path: '/range', kind: 'direct_post', price: { uniform: [5, 40] } },
      { path: '/slow', kind: 'direct_post', price: { fixed: 1 }, latencyMs: { fixed: 150 } },
    ]);

    it('answers JSON: accepted with price, reference and templated redirect', async () => {
      const reply = await send(simulator(), '/json/buy', LEAD);
      expect(reply.status).to.equal(200);
      expect(reply.contentType).to.equal('application/json; charset=utf-8');
      const body = JSON.parse(reply.text);
      expect(body).to.have.all.keys('status', 'price', 'leadRef', 'redirect');
      expect(body.status).to.equal('accepted');
      expect(body.price).to.equal('12.50');
      expect(body.leadRef).to.match(/^SIM-\d{6}$/);
      expect(body.redirect).to.equal(`https://lender.example/go?ref=${body.leadRef}&lead=lead-0001&p=12.50`);
    });

    it('answers JSON: rejected with a reason', async () => {
      const reply = await send(simulator(), '/json/refuse', LEAD);
      expect(reply.status).to.equal(200);
      expect(JSON.parse(reply.text)).to.deep.equal({ status: 'rejected', reason: 'declined' });
    });

    it('answers XML, escaping the redirect', async () => {
      const accepted = await send(simulator(), '/xml/buy', LEAD);
      expect(accepted.contentType).to.equal('application/xml; charset=utf-8');
      const ref = /<leadRef>(SIM-\d{6})<\/leadRef>/.exec(accepted.text)?.[1];
      expect(accepted.text).to.equal(
        `${XML_HEAD}<response><result status="accepted"/><price>7.00</price><leadRef>${ref}</leadRef>` +
          `<redirect>https://lender.example/a?x=1&amp;ref=${ref}</redirect></response>`,
      );
      const rejected = await send(simulator(), '/xml/refuse', LEAD);
      expect(rejected.text).to.equal(
        `${XML_HEAD}<response><result status="rejected"/><reason>declined</reason></response>`,
      );
    });

    it('answers plain text, pipe-delimited', async () => {
      const accepted = await send(simulator(), '/text/buy', LEAD);
      expect(accepted.contentType).to.equal('text/plain; charset=utf-8');
      expect(accepted.text).to.match(/^ACCEPTED\|30\.10\|SIM-\d{6}\|$/);
      expect((await send(simulator(), '/text/refuse', LEAD)).text).to.equal('REJECTED|declined');
    });

    it('reads form bodies as well as JSON', async () => {
      const reply = await send(simulator(), '/json/buy', LEAD, { form: true });
      expect(JSON.parse(reply.text)).to.include({ status: 'accepted', redirect: JSON.parse(reply.text).redirect });
      expect(JSON.parse(reply.text).redirect).to.contain('lead=lead-0001');
    });

    it('prices within the distribution', async () => {
      for (let i = 0; i < 50; i += 1) {
        const price = Number((await sendJson(simulator(), '/range', LEAD)).price);
        expect(price).to.be.within(5, 40);
      }
    });

    it('waits its latency before answering', async () => {
      const started = performance.now();
      await send(simulator(), '/slow', LEAD);
      expect(performance.now() - started).to.be.at.least(145);
    });

    it('still decides a post whose client gave up during the latency, as a lender would', async () => {
      const gaveUp = await fetch(`${simulator().url}/slow`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(LEAD),
        signal: AbortSignal.timeout(30),
      }).catch((error: Error) => error.name);
      expect(gaveUp).to.equal('TimeoutError');
      await new Promise((resolve) => setTimeout(resolve, 250));
      expect(simulator().stats().endpoints['/slow']).to.include({ posts: 1, accepted: 1 });
    });

    it('counts posts, acceptances and their value', async () => {
      await send(simulator(), '/json/buy', LEAD);
      await send(simulator(), '/json/buy', LEAD);
      await send(simulator(), '/json/refuse', LEAD);
      const { endpoints } = simulator().stats();
      expect(endpoints['/json/buy']).to.include({ posts: 2, accepted: 2, acceptedCents: 2500, rejected: 0 });
      expect(endpoints['/json/refuse']).to.include({ posts: 1, accepted: 0, rejected: 1 });
    });
  });

  describe('the same seed', () => {
    const config: EndpointConfig[] = [
      { path: '/p', kind: 'direct_post', acceptRate: 0.5, price: { normal: { mean: 20, sd: 8, min: 5, max: 60 } } },
    ];

    it('gives the same answers to the same requests', async () => {
      const run = async () => {
        const simulator = await startSimulator({ endpoints: config, seed: SEED });
        try {
          const answers: unknown[] = [];
          for (let i = 0; i < 30; i += 1) {
            const { status, price, reason } = await sendJson(simulator, '/p', LEAD);
            answers.push({ status, price, reason });
          }
          return answers;
        } finally {
          await simulator.close();
        }
      };
      expect(await run()).to.deep.equal(await run());
    });
  });

  describe('acceptRate', () => {
    const simulator = useSimulator([
      { path: '/post', kind: 'direct_post', acceptRate: 0.3, price: { fixed: 10 } },
      { path: '/ping', kind: 'ping', acceptRate: 0.7, bid: { uniform: [1, 2] } },
    ]);

    it('is honoured over many posts and pings', async () => {
      for (let i = 0; i < 600; i += 1) {
        await send(simulator(), '/post', LEAD);
        await send(simulator(), '/ping', { ...PING, leadId: `lead-${i}` });
      }
      const { endpoints } = simulator().stats();
      expect(endpoints['/post'].accepted / 600).to.be.closeTo(0.3, 0.06);
      expect(endpoints['/ping'].bids / 600).to.be.closeTo(0.7, 0.06);
      expect(endpoints['/ping'].bids + endpoints['/ping'].noBids).to.equal(600);
    });
  });

  describe('ping-post', () => {
    const endpoints: EndpointConfig[] = [
      { path: '/l/ping', kind: 'ping', bid: { uniform: [10, 50] } },
      { path: '/l/post', kind: 'post', ping: '/l/ping', redirectUrl: 'https://l.example/{leadRef}' },
      { path: '/x/ping', kind: 'ping', format: 'xml', bid: { fixed: 23.1 } },
      { path: '/x/post', kind: 'post', format: 'xml', ping: '/x/ping' },
      { path: '/t/ping', kind: 'ping', format: 'text', bid: { fixed: 23.1 } },
      { path: '/t/post', kind: 'post', format: 'text', ping: '/t/ping' },
      { path: '/none/ping', kind: 'ping', format: 'json', acceptRate: 0, bid: { fixed: 1 } },
      { path: '/none-x/ping', kind: 'ping', format: 'xml', acceptRate: 0, bid: { fixed: 1 } },
      { path: '/none-t/ping', kind: 'ping', format: 'text', acceptRate: 0, bid: { fixed: 1 } },
      { path: '/picky/ping', kind: 'ping', bid: { fixed: 5 } },
      { path: '/picky/post', kind: 'post', ping: '/picky/ping', acceptRate: 0 },
      { path: '/brief/ping', kind: 'ping', bid: { fixed: 5 }, pingTtlMs: 30 },
      { path: '/brief/post', kind: 'post', ping: '/brief/ping' },
    ];
    const simulator = useSimulator(endpoints);

    it('bids in JSON, then accepts the post of the same lead at that bid', async () => {
      const ping = await sendJson(simulator(), '/l/ping', PING);
      expect(ping).to.have.all.keys('status', 'bid', 'pingRef');
      expect(ping.status).to.equal('bid');
      expect(Number(ping.bid)).to.be.within(10, 50);
      expect(ping.pingRef).to.match(/^PING-\d{6}$/);
      const post = await sendJson(simulator(), '/l/post', LEAD);
      expect(post.status).to.equal('accepted');
      expect(post.price).to.equal(ping.bid);
      expect(post.redirect).to.equal(`https://l.example/${post.leadRef}`);
      const stats = simulator().stats().endpoints;
      expect(stats['/l/ping']).to.include({ pings: 1, bids: 1, bidCents: Math.round(Number(ping.bid) * 100) });
      expect(stats['/l/post']).to.include({ posts: 1, accepted: 1, acceptedCents: Math.round(Number(ping.bid) * 100) });
    });

    it('matches a post by the pingRef of the bid too', async () => {
      const ping = await sendJson(simulator(), '/l/ping', { ...PING, leadId: undefined });
      const post = await sendJson(simulator(), '/l/post', { ...LEAD, leadId: 'other', pingRef: ping.pingRef });
      expect(post).to.include({ status: 'accepted', price: ping.bid });
    });

    it('bids and accepts in XML and in text', async () => {
      const xmlPing = await send(simulator(), '/x/ping', PING);
      expect(xmlPing.text).to.match(
        new RegExp(
          `^${XML_HEAD.replace(/[?.]/g, '\\$&')}<response><result status="bid"/><bid>23\\.10</bid><pingRef>PING-\\d{6}</pingRef></response>$`,
        ),
      );
      expect((await send(simulator(), '/x/post', LEAD)).text).to.match(
        /<result status="accepted"\/><price>23\.10<\/price><leadRef>SIM-\d{6}<\/leadRef><\/response>$/,
      );
      expect((await send(simulator(), '/t/ping', PING)).text).to.match(/^BID\|23\.10\|PING-\d{6}$/);
      expect((await send(simulator(), '/t/post', LEAD)).text).to.match(/^ACCEPTED\|23\.10\|SIM-\d{6}\|$/);
    });

    it('answers no bid in each format', async () => {
      expect(await sendJson(simulator(), '/none/ping', PING)).to.deep.equal({
        status: 'no_bid',
        bid: null,
        reason: 'no bid',
      });
      expect((await send(simulator(), '/none-x/ping', PING)).text).to.equal(
        `${XML_HEAD}<response><result status="no_bid"/><reason>no bid</reason></response>`,
      );
      expect((await send(simulator(), '/none-t/ping', PING)).text).to.equal('NOBID|no bid');
      expect(simulator().stats().endpoints['/none/ping']).to.include({ pings: 1, bids: 0, noBids: 1 });
    });

    it('rejects a post with no matching ping, and a second post against the same bid', async () => {
      expect(await sendJson(simulator(), '/l/post', LEAD)).to.deep.equal({
        status: 'rejected',
        reason: 'no matching ping',
      });
      await sendJson(simulator(), '/l/ping', PING);
      expect((await sendJson(simulator(), '/l/post', LEAD)).status).to.equal('accepted');
      expect(await sendJson(simulator(), '/l/post', LEAD)).to.deep.equal({
        status: 'rejected',
        reason: 'no matching ping',
      });
      expect(simulator().stats().endpoints['/l/post']).to.include({
        posts: 3,
        accepted: 1,
        rejected: 2,
        unmatchedPosts: 2,
      });
    });

    it("rejects a post against another lender's ping", async () => {
      await send(simulator(), '/x/ping', PING);
      expect(await sendJson(simulator(), '/l/post', LEAD)).to.deep.equal({
        status: 'rejected',
        reason: 'no matching ping',
      });
    });

    it('declines posts by its own acceptRate', async () => {
      await sendJson(simulator(), '/picky/ping', PING);
      expect(await sendJson(simulator(), '/picky/post', LEAD)).to.deep.equal({
        status: 'rejected',
        reason: 'declined',
      });
    });

    it('forgets a bid after pingTtlMs', async () => {
      await sendJson(simulator(), '/brief/ping', PING);
      await new Promise((resolve) => setTimeout(resolve, 60));
      expect(await sendJson(simulator(), '/brief/post', LEAD)).to.deep.equal({
        status: 'rejected',
        reason: 'no matching ping',
      });
    });

    it('works with form bodies', async () => {
      const ping = JSON.parse((await send(simulator(), '/l/ping', PING, { form: true })).text);
      const post = JSON.parse((await send(simulator(), '/l/post', LEAD, { form: true })).text);
      expect(post).to.include({ status: 'accepted', price: ping.bid });
    });
  });

  describe('auth', () => {
    const simulator = useSimulator([
      { path: '/bearer', kind: 'direct_post', price: { fixed: 1 }, requireAuth: { type: 'bearer', token: 's3cret' } },
      {
        path: '/basic',
        kind: 'direct_post',
        price: { fixed: 1 },
        requireAuth: { type: 'basic', username: 'lf', password: 'pw:1' },
      },
    ]);

    it('answers 401 without the bearer token, or with another', async () => {
      const missing = await send(simulator(), '/bearer', LEAD);
      expect(missing.status).to.equal(401);
      expect(missing.headers.get('www-authenticate')).to.equal('Bearer realm="simulator"');
      expect(JSON.parse(missing.text)).to.deep.equal({ status: 'error', message: 'unauthorized' });
      expect((await send(simulator(), '/bearer', LEAD, { headers: { authorization: 'Bearer nope' } })).status).to.equal(
        401,
      );
      const ok = await send(simulator(), '/bearer', LEAD, { headers: { authorization: 'Bearer s3cret' } });
      expect(ok.status).to.equal(200);
      expect(simulator().stats().endpoints['/bearer']).to.include({ posts: 3, unauthorized: 2, accepted: 1 });
    });

    it('checks basic credentials', async () => {
      const basic = (user: string, password: string) =>
        `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;
      expect(
        (await send(simulator(), '/basic', LEAD, { headers: { authorization: basic('lf', 'pw') } })).status,
      ).to.equal(401);
      expect(
        (await send(simulator(), '/basic', LEAD, { headers: { authorization: basic('lf', 'pw:1') } })).status,
      ).to.equal(200);
    });
  });

  describe('duplicate check', () => {
    const simulator = useSimulator([
      { path: '/dedupe', kind: 'direct_post', price: { fixed: 9 }, duplicateCheck: true },
      { path: '/dedupe-declines', kind: 'direct_post', price: { fixed: 9 }, duplicateCheck: true, acceptRate: 0 },
      { path: '/lax', kind: 'direct_post', price: { fixed: 9 } },
      { path: '/d/ping', kind: 'ping', bid: { fixed: 3 } },
      { path: '/d/post', kind: 'post', ping: '/d/ping', duplicateCheck: true },
    ]);

    it('rejects a second post of the same ssn or the same email', async () => {
      expect((await sendJson(simulator(), '/dedupe', LEAD)).status).to.equal('accepted');
      const sameSsn = { ...LEAD, ssn: '123456789', email: 'other@example.com' };
      expect(await sendJson(simulator(), '/dedupe', sameSsn)).to.deep.equal({
        status: 'rejected',
        reason: 'duplicate',
      });
      const sameEmail = { ...LEAD, ssn: '987-65-4321', email: ' JANE.DOE@example.com' };
      expect((await sendJson(simulator(), '/dedupe', sameEmail)).reason).to.equal('duplicate');
      const nested = { applicant: { ssn: '123-45-6789' } };
      expect((await sendJson(simulator(), '/dedupe', nested)).reason).to.equal('duplicate');
      const someoneElse = { ...LEAD, ssn: '111-22-3333', email: 'john@example.com' };
      expect((await sendJson(simulator(), '/dedupe', someoneElse)).status).to.equal('accepted');
      expect(simulator().stats().endpoints['/dedupe']).to.include({ accepted: 2, rejected: 3, duplicates: 3 });
    });

    it('remembers applicants it declined as well', async () => {
      expect((await sendJson(simulator(), '/dedupe-declines', LEAD)).reason).to.equal('declined');
      expect((await sendJson(simulator(), '/dedupe-declines', LEAD)).reason).to.equal('duplicate');
    });

    it('is off unless configured', async () => {
      expect((await sendJson(simulator(), '/lax', LEAD)).status).to.equal('accepted');
      expect((await sendJson(simulator(), '/lax', LEAD)).status).to.equal('accepted');
    });

    it('applies to the post half of ping-post', async () => {
      await sendJson(simulator(), '/d/ping', PING);
      expect((await sendJson(simulator(), '/d/post', LEAD)).status).to.equal('accepted');
      await sendJson(simulator(), '/d/ping', { ...PING, leadId: 'lead-0002' });
      expect(await sendJson(simulator(), '/d/post', { ...LEAD, leadId: 'lead-0002' })).to.deep.equal({
        status: 'rejected',
        reason: 'duplicate',
      });
    });
  });

  describe('personal data in pings', () => {
    const simulator = useSimulator([{ path: '/p/ping', kind: 'ping', bid: { fixed: 3 } }]);

    it('flags a ping carrying personal data, naming the fields', async () => {
      await send(simulator(), '/p/ping', PING);
      expect(simulator().stats().endpoints['/p/ping']).to.include({ pings: 1, piiPings: 0 });
      await send(simulator(), '/p/ping', {
        ...PING,
        email: 'jane@example.com',
        applicant: { SSN: '123456789', date_of_birth: '1990-01-01' },
      });
      await send(
        simulator(),
        '/p/ping',
        { ...PING, bank_account_number: '000123', cellPhone: '5125550100' },
        { form: true },
      );
      const stats = simulator().stats().endpoints['/p/ping'];
      expect(stats.piiPings).to.equal(2);
      expect(stats.piiFields).to.deep.equal([
        'applicant.SSN',
        'applicant.date_of_birth',
        'bank_account_number',
        'cellPhone',
        'email',
      ]);
    });

    it('still answers the ping', async () => {
      expect((await sendJson(simulator(), '/p/ping', { ...PING, ssn: '123456789' })).status).to.equal('bid');
    });
  });

  describe('XML, SOAP and GET requests', () => {
    const simulator = useSimulator([
      { path: '/x/ping', kind: 'ping', bid: { fixed: 3 } },
      { path: '/x/post', kind: 'direct_post', price: { fixed: 1 } },
    ]);
    const xml = (path: string, contentType: string, body: string) =>
      fetch(simulator().url + path, { method: 'POST', headers: { 'content-type': contentType }, body });

    it('reads an XML lead, a SOAP Body and a GET query string, and finds personal data in each', async () => {
      const plain = await xml(
        '/x/post',
        'application/xml; charset=utf-8',
        '<?xml version="1.0"?><Lead v="1"><Applicant><Ssn>123456789</Ssn></Applicant><State>TX</State></Lead>',
      );
      expect(plain.status).to.equal(200);
      expect(((await plain.json()) as { status: string }).status).to.equal('accepted');
      const soap =
        '<soap:Envelope xmlns:soap="http://schemas.xmlsoap.org/soap/envelope/"><soap:Body><a:Ping xmlns:a="urn:a"><a:State>TX</a:State><a:Email>j@example.com</a:Email></a:Ping></soap:Body></soap:Envelope>';
      expect((await xml('/x/ping', 'text/xml; charset=utf-8', soap)).status).to.equal(200);
      expect((await fetch(`${simulator().url}/x/ping?state=TX&ssn=123456789`)).status).to.equal(200);
      expect(simulator().stats().endpoints['/x/ping']).to.include({ pings: 2, piiPings: 2 });
      expect(simulator().stats().endpoints['/x/ping'].piiFields).to.deep.equal(['Ping.Email', 'ssn']);
    });

    it('answers 400 to XML that is not well-formed or has a DOCTYPE', async () => {
      expect((await xml('/x/post', 'application/xml', '<Lead><a></Lead>')).status).to.equal(400);
      expect(
        (await xml('/x/post', 'application/xml', '<!DOCTYPE x [<!ENTITY e "e">]><Lead>&e;</Lead>')).status,
      ).to.equal(400);
    });
  });

  describe('requests it cannot take', () => {
    const simulator = useSimulator([{ path: '/a/post', kind: 'direct_post', price: { fixed: 1 } }]);

    it('answers 400, 415, 405 and 404 as JSON errors, counted', async () => {
      const post = (init: RequestInit, path = '/a/post') => fetch(simulator().url + path, init);
      const malformed = await post({
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{"ssn":',
      });
      expect(malformed.status).to.equal(400);
      expect(await malformed.json()).to.deep.equal({ status: 'error', message: 'body is not valid JSON' });
      expect(
        (await post({ method: 'POST', headers: { 'content-type': 'application/json' }, body: '[1]' })).status,
      ).to.equal(400);
      expect((await post({ method: 'POST', headers: { 'content-type': 'text/plain' }, body: 'hi' })).status).to.equal(
        415,
      );
      expect((await post({ method: 'DELETE' })).status).to.equal(405);
      const unknown = await post(
        { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' },
        '/b/post',
      );
      expect(unknown.status).to.equal(404);
      const stats = simulator().stats();
      expect(stats.endpoints['/a/post']).to.include({ posts: 4, badRequests: 4, accepted: 0 });
      expect(stats.unknownPaths).to.equal(1);
    });
  });
});
