import { BuyerSummary } from '@leadflow/proto/leadflow/admin/v1/admin';
import { buyerModes, circuitStates, pricings } from '@leadflow/service-kit/admin-enums';
import { msOfDuration } from '@leadflow/service-kit/proto-time';
import { stringify } from 'yaml';
import { dollars, fields, table, timestamp } from '../format.js';
import { messageJson } from '../json-output.js';
import { apply } from './buyer-apply.js';
import { tree } from './buyer-tree.js';
import type { Command } from './command.js';

const status = (summary: BuyerSummary) => (summary.active ? 'active' : 'paused');

/** `"lender-a" (buy_...)`, as messages name a buyer. */
function named(summary: BuyerSummary): string {
  return `"${summary.name}" (${summary.id})`;
}

function buyerTable(buyers: BuyerSummary[]): string {
  return table(
    [
      'ID',
      'NAME',
      'STATUS',
      'TIER',
      'PRIORITY',
      'WEIGHT',
      'MODE',
      'PRICING',
      'POST HOST',
      'CIRCUIT',
      'TODAY (LEADS / SPEND)',
    ],
    buyers.map((buyer) => [
      buyer.id,
      buyer.name,
      status(buyer),
      String(buyer.tier),
      String(buyer.priority),
      String(buyer.weight),
      buyerModes.nameOf(buyer.mode) ?? '-',
      pricings.nameOf(buyer.pricing) ?? '-',
      buyer.postHost || '-',
      circuitStates.nameOf(buyer.circuit) ?? '-',
      `${buyer.usage?.leadsToday ?? 0} / ${dollars(buyer.usage?.spendTodayCents ?? 0)}`,
    ]),
  );
}

function summaryFields(buyer: BuyerSummary): string {
  const usage = buyer.usage;
  return fields([
    ['id', buyer.id],
    ['name', buyer.name],
    ['status', status(buyer)],
    ['tier', String(buyer.tier)],
    ['priority', String(buyer.priority)],
    ['weight', String(buyer.weight)],
    ['mode', buyerModes.nameOf(buyer.mode) ?? '-'],
    ['pricing', pricings.nameOf(buyer.pricing) ?? '-'],
    ['post host', buyer.postHost || '-'],
    ['circuit', circuitStates.nameOf(buyer.circuit) ?? '-'],
    [
      'leads',
      `${usage?.leadsThisHour ?? 0} this hour, ${usage?.leadsToday ?? 0} today, ${usage?.leadsThisMonth ?? 0} this month`,
    ],
    ['spend', `${dollars(usage?.spendTodayCents ?? 0)} today`],
    ['learned', learnedText(buyer)],
    ['updated', timestamp(buyer.updateTime)],
  ]);
}

const percent = (share: number) => `${Math.round(share * 100)}%`;

/**
 * `38% accepted (prior 50%, 45 of 118 answered posts), 2% unanswered, post p50 240 ms, p90 910 ms (120
 * recent posts)`: the accept rate with the prior it is smoothed toward and the posts it rests on, as
 * after a single post it is mostly the prior.
 */
function learnedText(buyer: BuyerSummary): string {
  const learned = buyer.learned;
  if (!learned || learned.posts === 0) {
    const prior = learned ? percent(learned.priorAcceptRate) : 'half';
    return `no live posts yet (taken to accept ${prior}, answering within its timeout)`;
  }
  const posts = learned.posts === 1 ? '1 recent post' : `${learned.posts} recent posts`;
  const answered = `${learned.acceptedPosts} of ${learned.answeredPosts} answered ${learned.answeredPosts === 1 ? 'post' : 'posts'}`;
  const accepted = `${percent(learned.acceptRate)} accepted (prior ${percent(learned.priorAcceptRate)}, ${answered})`;
  return `${accepted}, ${percent(learned.unansweredRate)} unanswered, post p50 ${Math.round(msOfDuration(learned.p50Latency))} ms, p90 ${Math.round(msOfDuration(learned.p90Latency))} ms (${posts})`;
}

const list: Command<void> = {
  group: 'buyer',
  name: 'list',
  synopsis: '',
  summary: 'list buyers with their rank, integration, circuit and usage today',
  details: [
    "TODAY is the leads bought and the spend counted against the caps today, in the buyer's time zone.",
    'The circuit is as the instance that answered sees it: closed, open or half_open.',
    'With --json, amounts are in integer cents.',
  ],
  options: {},
  positionals: [],
  parse: () => undefined,
  async run(calls) {
    const buyers = await calls.listBuyers();
    return {
      json: { buyers: buyers.map((buyer) => messageJson(BuyerSummary, buyer)) },
      text: buyers.length === 0 ? 'No buyers.\n' : buyerTable(buyers),
    };
  },
};

const show: Command<{ buyer: string }> = {
  group: 'buyer',
  name: 'show',
  synopsis: 'ID_OR_NAME',
  summary: "show a buyer's state, usage, learned post figures and definition (header values and credentials redacted)",
  details: [
    "learned: the accept rate and post latency of the buyer's recent live posts (at most 200, the newest",
    'weighing most), as the instance that answered knows them; post ordering uses them when time is short.',
    'The accept rate starts at its prior (the recent rate of posts to any buyer, or half before any) and',
    "moves to the buyer's own as its answered posts add up.",
    'The definition is printed as YAML, as the service keeps it: amounts in cents, times in milliseconds.',
    'With --json, prints {"summary": ..., "definition": ...}.',
  ],
  options: {},
  positionals: ['ID_OR_NAME'],
  parse: (args) => ({ buyer: args.positionals[0] }),
  async run(calls, input) {
    const { summary, definition } = await calls.getBuyer(input.buyer);
    return {
      json: { summary: messageJson(BuyerSummary, summary), definition },
      text: `${summaryFields(summary)}\n${stringify({ definition })}`,
    };
  },
};

function setActive(active: boolean): Command<{ buyer: string }> {
  return {
    group: 'buyer',
    name: active ? 'resume' : 'pause',
    synopsis: 'ID_OR_NAME',
    summary: active ? 'offer a paused buyer leads again' : 'stop offering a buyer leads, keeping its definition',
    details: [
      'Takes effect within a second on every instance.',
      'With --json, prints the buyer as `leadflow buyer list` does.',
    ],
    options: {},
    positionals: ['ID_OR_NAME'],
    parse: (args) => ({ buyer: args.positionals[0] }),
    async run(calls, input) {
      const summary = await calls.setBuyerActive(input.buyer, active);
      return {
        json: messageJson(BuyerSummary, summary),
        text: active
          ? `Resumed buyer ${named(summary)}: it is offered leads again (within a second on every instance).\n`
          : `Paused buyer ${named(summary)}: it is offered no more leads (within a second on every instance).\n`,
      };
    },
  };
}

export const buyerCommands = [apply, list, show, tree, setActive(false), setActive(true)];
