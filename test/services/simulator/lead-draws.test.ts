import { type EndpointConfig, type Simulator, startSimulator } from '@leadflow/simulator';
import { expect } from 'chai';
import { LEAD, PING, SEED, sendJson } from '../../support/simulator.js';

const MARKET: EndpointConfig[] = [
  { path: '/a/ping', kind: 'ping', acceptRate: 0.7, bid: { uniform: [10, 60] }, latencyMs: { uniform: [0, 40] } },
  {
    path: '/a/post',
    kind: 'post',
    ping: '/a/ping',
    acceptRate: 0.5,
    latencyMs: { uniform: [0, 60] },
    errors: { status500: 0.1 },
  },
  { path: '/b/ping', kind: 'ping', acceptRate: 0.8, bid: { uniform: [10, 60] }, latencyMs: { uniform: [0, 40] } },
  { path: '/b/post', kind: 'post', ping: '/b/ping', acceptRate: 0.6, latencyMs: { uniform: [0, 60] } },
  {
    path: '/c/post',
    kind: 'direct_post',
    acceptRate: 0.4,
    price: { uniform: [5, 30] },
    latencyMs: { uniform: [0, 40] },
  },
];

const LEADS = Array.from({ length: 40 }, (_, index) => `click-${index}`);

interface Sold {
  path: string;
  priceCents: number;
}

/** Asks every endpoint about every lead, in the given order of leads; the sales each lead got. */
async function sellEverywhere(simulator: Simulator, leads: readonly string[]): Promise<Map<string, Sold[]>> {
  const sales = new Map<string, Sold[]>();
  for (const lead of leads) {
    const sold: Sold[] = [];
    const leadId = `${lead}-id`;
    for (const name of ['a', 'b']) {
      const ping = await sendJson(simulator, `/${name}/ping`, { ...PING, leadId, click: lead });
      if (ping.status !== 'bid') continue;
      const post = await sendJson(simulator, `/${name}/post`, { ...LEAD, leadId, pingRef: ping.pingRef, click: lead });
      if (post.status === 'accepted')
        sold.push({ path: `/${name}/post`, priceCents: Math.round(Number(post.price) * 100) });
    }
    const direct = await sendJson(simulator, '/c/post', { ...LEAD, leadId, click: lead });
    if (direct.status === 'accepted')
      sold.push({ path: '/c/post', priceCents: Math.round(Number(direct.price) * 100) });
    sales.set(lead, sold);
  }
  return sales;
}

describe('simulator: lead-keyed draws', () => {
  let simulator: Simulator | undefined;
  afterEach(async () => {
    await simulator?.close();
    simulator = undefined;
  });

  it('answers each lead the same whatever the order of requests', async () => {
    simulator = await startSimulator({ endpoints: MARKET, seed: SEED, leadKey: 'click' });
    const forward = await sellEverywhere(simulator, LEADS);
    simulator.reset();
    const backward = await sellEverywhere(simulator, LEADS.toReversed());
    for (const lead of LEADS) expect(backward.get(lead), lead).to.deep.equal(forward.get(lead));
    const sold = [...forward.values()].filter((sales) => sales.length > 0).length;
    expect(sold).to.be.within(10, 39);
  });

  it('names as best sale the highest price that really sells, within the budget and over the floor', async () => {
    simulator = await startSimulator({ endpoints: MARKET, seed: SEED, leadKey: 'click' });
    const sales = await sellEverywhere(simulator, LEADS);
    const best = simulator.bestSales(LEADS, { budgetMs: 1000, minPriceCents: 0 });
    for (const lead of LEADS) {
      const prices = sales.get(lead)!.map((sale) => sale.priceCents);
      expect(best[lead]?.priceCents ?? null, lead).to.equal(prices.length === 0 ? null : Math.max(...prices));
    }
    const floored = simulator.bestSales(LEADS, { budgetMs: 1000, minPriceCents: 3000 });
    for (const lead of LEADS) {
      const over = sales
        .get(lead)!
        .map((sale) => sale.priceCents)
        .filter((cents) => cents >= 3000);
      expect(floored[lead]?.priceCents ?? null, lead).to.equal(over.length === 0 ? null : Math.max(...over));
    }
    // The planned sale is one the lead really makes, never better than the best, and often as good.
    const planned = simulator.plannedSales(LEADS, { budgetMs: 1000, minPriceCents: 0 });
    for (const lead of LEADS) {
      const sale = planned[lead];
      if (sale) expect(sales.get(lead), lead).to.deep.include({ path: sale.path, priceCents: sale.priceCents });
      expect(sale?.priceCents ?? 0, lead).to.be.at.most(best[lead]?.priceCents ?? 0);
    }
    const matched = LEADS.filter((lead) => (planned[lead]?.priceCents ?? 0) === (best[lead]?.priceCents ?? 0));
    expect(matched.length).to.be.within(LEADS.length / 2, LEADS.length);
    // No ping and post together take less than nothing: a budget of 0 leaves only instant sales.
    const instant = simulator.bestSales(LEADS, { budgetMs: 0, minPriceCents: 0 });
    for (const lead of LEADS) expect(instant[lead]?.durationMs ?? 0).to.equal(0);
  });

  it('gives the best sales over the admin API, and refuses them without a leadKey', async () => {
    simulator = await startSimulator({ endpoints: MARKET, seed: SEED, leadKey: 'click' });
    const response = await fetch(`${simulator.url}/_simulator/best-sales`, {
      method: 'POST',
      body: JSON.stringify({ leads: LEADS.slice(0, 5), budgetMs: 500, minPriceCents: 1000 }),
    });
    expect(response.status).to.equal(200);
    const terms = { budgetMs: 500, minPriceCents: 1000 };
    expect(await response.json()).to.deep.equal({
      sales: simulator.bestSales(LEADS.slice(0, 5), terms),
      plannedSales: simulator.plannedSales(LEADS.slice(0, 5), terms),
    });
    const bad = await fetch(`${simulator.url}/_simulator/best-sales`, { method: 'POST', body: '{"leads": [1]}' });
    expect(bad.status).to.equal(400);
    await simulator.close();

    simulator = await startSimulator({ endpoints: MARKET, seed: SEED });
    const unkeyed = await fetch(`${simulator.url}/_simulator/best-sales`, { method: 'POST', body: '{}' });
    expect(unkeyed.status).to.equal(409);
  });
});
