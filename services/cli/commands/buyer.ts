import { stringify } from 'yaml';
import type { BuyerSummary } from '../../../proto/generated/leadflow/admin/v1/admin.js';
import { dollars, fields, table, timestamp } from '../format.js';
import { apply } from './buyer-apply.js';
import type { Command } from './command.js';

const status = (summary: BuyerSummary) => (summary.active ? 'active' : 'paused');

/** `"lender-a" (buy_...)`, as messages name a buyer. */
function named(summary: BuyerSummary): string {
  return `"${summary.name}" (${summary.id})`;
}

function buyerTable(buyers: BuyerSummary[]): string {
  return table(
    ['ID', 'NAME', 'STATUS', 'TIER', 'PRIORITY', 'WEIGHT', 'MODE', 'PRICING', 'POST HOST', 'CIRCUIT', 'TODAY (LEADS / SPEND)'],
    buyers.map((buyer) => [
      buyer.id,
      buyer.name,
      status(buyer),
      String(buyer.tier),
      String(buyer.priority),
      String(buyer.weight),
      buyer.mode,
      buyer.pricing,
      buyer.postHost || '-',
      buyer.circuit,
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
    ['mode', buyer.mode],
    ['pricing', buyer.pricing],
    ['post host', buyer.postHost || '-'],
    ['circuit', buyer.circuit],
    ['leads', `${usage?.leadsThisHour ?? 0} this hour, ${usage?.leadsToday ?? 0} today, ${usage?.leadsThisMonth ?? 0} this month`],
    ['spend', `${dollars(usage?.spendTodayCents ?? 0)} today`],
    ['updated', timestamp(buyer.updatedAtMs)],
  ]);
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
    return { json: { buyers }, text: buyers.length === 0 ? 'No buyers.\n' : buyerTable(buyers) };
  },
};

const show: Command<{ buyer: string }> = {
  group: 'buyer',
  name: 'show',
  synopsis: 'ID_OR_NAME',
  summary: "show a buyer's state, usage and definition (header values and credentials redacted)",
  details: [
    'The definition is printed as YAML, as the service keeps it: amounts in cents, times in milliseconds.',
    'With --json, prints {"summary": ..., "definition": ...}.',
  ],
  options: {},
  positionals: ['ID_OR_NAME'],
  parse: (args) => ({ buyer: args.positionals[0] }),
  async run(calls, input) {
    const { summary, definition } = await calls.getBuyer(input.buyer);
    return { json: { summary, definition }, text: `${summaryFields(summary)}\n${stringify({ definition })}` };
  },
};

function setActive(active: boolean): Command<{ buyer: string }> {
  return {
    group: 'buyer',
    name: active ? 'resume' : 'pause',
    synopsis: 'ID_OR_NAME',
    summary: active ? 'offer a paused buyer leads again' : 'stop offering a buyer leads, keeping its definition',
    details: ['Takes effect within a second on every instance.', 'With --json, prints the buyer as `leadflow buyer list` does.'],
    options: {},
    positionals: ['ID_OR_NAME'],
    parse: (args) => ({ buyer: args.positionals[0] }),
    async run(calls, input) {
      const summary = await calls.setBuyerActive(input.buyer, active);
      return {
        json: summary,
        text: active
          ? `Resumed buyer ${named(summary)}: it is offered leads again (within a second on every instance).\n`
          : `Paused buyer ${named(summary)}: it is offered no more leads (within a second on every instance).\n`,
      };
    },
  };
}

export const buyerCommands = [apply, list, show, setActive(false), setActive(true)];
