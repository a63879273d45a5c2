import { expect } from 'chai';
import { rawPost, send, useSimulator } from '../../support/simulator.js';

/** What a ping may carry. */
const PING = { leadId: 'lead-0001', state: 'TX', zip: '75001' };
const LEAD = { leadId: 'lead-0001', email: 'jane.doe@example.com', ssn: '123-45-6789' };

describe("simulator: a lender's own replies", () => {
  const simulator = useSimulator([
    {
      path: '/json/ping',
      kind: 'ping',
      bid: { fixed: 31.5 },
      replies: { bid: '{"status": "bid", "price": "{bid}", "ping_id": "{pingRef}"}' },
    },
    {
      path: '/json/post',
      kind: 'post',
      ping: '/json/ping',
      redirectUrl: 'https://lender.example/go?q="{leadRef}"',
      replies: { accepted: '{"decision": "APPROVED", "id": "{leadRef}", "url": "{redirect}", "paid": {price}}' },
    },
    {
      path: '/xml/ping',
      kind: 'ping',
      format: 'xml',
      acceptRate: 0,
      bid: { fixed: 1 },
      replies: { noBid: '<r><s>no_bid</s><why>{reason}</why></r>' },
    },
    {
      path: '/xml/buy',
      kind: 'direct_post',
      format: 'xml',
      price: { fixed: 7 },
      redirectUrl: 'https://lender.example/a?x=1&ref={leadRef}',
      replies: { accepted: '<result><status>accepted</status><url>{redirect}</url></result>' },
    },
    {
      path: '/text/refuse',
      kind: 'direct_post',
      format: 'text',
      acceptRate: 0,
      price: { fixed: 7 },
      replies: { rejected: 'ERR;{reason}' },
    },
    {
      path: '/text/buy',
      kind: 'direct_post',
      format: 'text',
      price: { fixed: 7 },
      redirectUrl: 'https://lender.example/a|b',
      replies: { accepted: 'OK;{price};{redirect}' },
    },
    {
      path: '/truncated',
      kind: 'direct_post',
      format: 'xml',
      price: { fixed: 7 },
      errors: { truncated: 1 },
      replies: { accepted: '<result><status>accepted</status><price>{price}</price></result>' },
    },
  ]);

  it('answers a ping and its post in the words of its config, placeholders filled in', async () => {
    const ping = await send(simulator(), '/json/ping', PING);
    expect(ping.contentType).to.equal('application/json; charset=utf-8');
    const bid = JSON.parse(ping.text);
    expect(bid).to.have.all.keys('status', 'price', 'ping_id');
    expect(bid).to.include({ status: 'bid', price: '31.50' });
    expect(bid.ping_id).to.match(/^PING-\d{6}$/);

    const post = JSON.parse((await send(simulator(), '/json/post', LEAD)).text);
    expect(post.decision).to.equal('APPROVED');
    expect(post.id).to.match(/^SIM-\d{6}$/);
    expect(post.url, 'a value escaped as JSON string content').to.equal(`https://lender.example/go?q="${post.id}"`);
    expect(post.paid).to.equal(31.5);
  });

  it('escapes values as XML text, and in text replaces line breaks and "|"', async () => {
    const noBid = await send(simulator(), '/xml/ping', PING);
    expect(noBid.contentType).to.equal('application/xml; charset=utf-8');
    expect(noBid.text).to.equal('<r><s>no_bid</s><why>no bid</why></r>');
    const accepted = (await send(simulator(), '/xml/buy', LEAD)).text;
    expect(accepted).to.match(
      /^<result><status>accepted<\/status><url>https:\/\/lender\.example\/a\?x=1&amp;ref=SIM-\d{6}<\/url><\/result>$/,
    );
    expect((await send(simulator(), '/text/refuse', LEAD)).text).to.equal('ERR;declined');
    expect((await send(simulator(), '/text/buy', LEAD)).text).to.equal('OK;7.00;https://lender.example/a b');
  });

  it('cuts its own success reply when a fault truncates one', async () => {
    const reply = await rawPost(`${simulator().url}/truncated`, LEAD);
    const whole = '<result><status>accepted</status><price>10.00</price></result>';
    expect(Number(reply.headers['content-length'])).to.equal(whole.length);
    expect(reply.body.toString()).to.equal(whole.slice(0, Math.floor(whole.length / 2)));
  });

  it('keeps its standard reply for a verdict it has none of its own for', async () => {
    const noBid = JSON.parse(
      (await send(simulator(), '/json/post', { ...LEAD, leadId: 'never-pinged' })).text,
    ) as Record<string, unknown>;
    expect(noBid).to.deep.equal({ status: 'rejected', reason: 'no matching ping' });
  });
});
