import { expect } from 'chai';
import { send, useSimulator } from '../../support/simulator.js';

const PING = { state: 'TX', zip: '75001' };
const LEAD = { email: 'jane.doe@example.com', ssn: '123-45-6789' };

async function bidRef(reply: Promise<{ text: string }>): Promise<string> {
  return JSON.parse((await reply).text).pingRef as string;
}

describe('simulator: a post names its bid', () => {
  const simulator = useSimulator([
    { path: '/l/ping', kind: 'ping', bid: { fixed: 20 } },
    { path: '/l/post', kind: 'post', ping: '/l/ping' },
  ]);

  it("by the ping's reference in a field of the lender's choosing: a form field, a nested JSON field", async () => {
    const first = await bidRef(send(simulator(), '/l/ping', PING));
    const byForm = await send(simulator(), '/l/post', { ...LEAD, ping_id: first }, { form: true });
    expect(JSON.parse(byForm.text)).to.include({ status: 'accepted', price: '20.00' });

    const second = await bidRef(send(simulator(), '/l/ping', PING));
    const nested = await send(simulator(), '/l/post', { ...LEAD, lead: { ping: { id: second } } });
    expect(JSON.parse(nested.text)).to.include({ status: 'accepted', price: '20.00' });
  });

  it('by an element of a SOAP body', async () => {
    const ref = await bidRef(send(simulator(), '/l/ping', PING));
    const envelope =
      '<s:Envelope xmlns:s="http://schemas.xmlsoap.org/soap/envelope/"><s:Body>' +
      `<h:SubmitLead xmlns:h="http://lender.example/"><h:PingId>${ref}</h:PingId><h:Ssn>123456789</h:Ssn></h:SubmitLead>` +
      '</s:Body></s:Envelope>';
    const response = await fetch(`${simulator().url}/l/post`, {
      method: 'POST',
      headers: { 'content-type': 'text/xml' },
      body: envelope,
    });
    expect(JSON.parse(await response.text())).to.include({ status: 'accepted' });
  });

  it('once only, and never by a value that names no bid', async () => {
    const ref = await bidRef(send(simulator(), '/l/ping', PING));
    expect(JSON.parse((await send(simulator(), '/l/post', { ...LEAD, ping_id: 'PING-999999' })).text)).to.deep.equal({
      status: 'rejected',
      reason: 'no matching ping',
    });
    expect(JSON.parse((await send(simulator(), '/l/post', { ...LEAD, ping_id: ref })).text).status).to.equal(
      'accepted',
    );
    expect(JSON.parse((await send(simulator(), '/l/post', { ...LEAD, ping_id: ref })).text)).to.deep.equal({
      status: 'rejected',
      reason: 'no matching ping',
    });
  });
});
