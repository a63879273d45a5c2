import type { Buyer } from '../../../proto/generated/leadflow/admin/v1/admin.js';
import { dollars, fields, table } from '../format.js';
import type { Command } from './command.js';

const DEFAULT_PRIORITY = 100;
const DEFAULT_TIMEOUT_MS = 5000;

function loanRange(buyer: Buyer): string {
  const { minLoanAmountCents: min, maxLoanAmountCents: max } = buyer;
  if (min === 0 && max === 0) return 'any';
  if (max === 0) return `${dollars(min)} or more`;
  return `${dollars(min)} to ${dollars(max)}`;
}

function shownSettings(buyer: Buyer) {
  return {
    status: buyer.active ? 'active' : 'paused',
    price: dollars(buyer.priceCents),
    states: buyer.states.join(',') || 'all',
    loanAmount: loanRange(buyer),
    postUrl: buyer.postUrl || '- (accepts every lead offered)',
    testPostUrl: buyer.testPostUrl || '- (accepts test leads without a call)',
    redirectUrl: buyer.redirectUrl || '-',
  };
}

function buyerTable(buyers: Buyer[]): string {
  return table(
    ['ID', 'NAME', 'STATUS', 'PRIORITY', 'PRICE', 'STATES', 'LOAN AMOUNT', 'TIMEOUT', 'POST URL', 'TEST POST URL', 'REDIRECT URL'],
    buyers.map((buyer) => {
      const shown = shownSettings(buyer);
      return [
        buyer.id,
        buyer.name,
        shown.status,
        String(buyer.priority),
        shown.price,
        shown.states,
        shown.loanAmount,
        `${buyer.timeoutMs} ms`,
        buyer.postUrl || '-',
        buyer.testPostUrl || '-',
        shown.redirectUrl,
      ];
    }),
  );
}

const upsert: Command<Buyer> = {
  group: 'buyer',
  name: 'upsert',
  synopsis:
    '--name NAME --price DOLLARS [--priority N] [--states CA,TX] [--min-amount DOLLARS] [--max-amount DOLLARS] ' +
    '[--post-url URL] [--test-post-url URL] [--timeout-ms N] [--redirect-url URL] [--paused]',
  summary: 'create a buyer, or replace the settings of the buyer with that name',
  details: [
    '--name NAME            the buyer; an existing buyer of that name gets these settings',
    '--price DOLLARS        what the buyer pays for a lead, e.g. 12.50',
    `--priority N           lower numbers are tried first (default ${DEFAULT_PRIORITY})`,
    '--states CA,TX         USPS codes the buyer takes (default: every state)',
    '--min-amount DOLLARS   smallest loan amount taken (default: no bound)',
    '--max-amount DOLLARS   largest loan amount taken (default: no bound)',
    '--post-url URL         where live leads are posted (default: none, the buyer takes every lead offered)',
    '--test-post-url URL    where test leads are posted (default: none, test leads are accepted without a call)',
    `--timeout-ms N         how long to wait for the buyer's answer (default ${DEFAULT_TIMEOUT_MS})`,
    "--redirect-url URL     sent to the publisher when the buyer's answer names none",
    '--paused               store the buyer but offer it no leads',
    'Settings left out are reset to their defaults.',
  ],
  options: {
    name: { type: 'string' },
    price: { type: 'string' },
    priority: { type: 'string' },
    states: { type: 'string' },
    'min-amount': { type: 'string' },
    'max-amount': { type: 'string' },
    'post-url': { type: 'string' },
    'test-post-url': { type: 'string' },
    'timeout-ms': { type: 'string' },
    'redirect-url': { type: 'string' },
    paused: { type: 'boolean' },
  },
  positionals: [],
  parse: (args) => ({
    // The service matches buyers by name and assigns the id.
    id: '',
    name: args.requiredString('name'),
    active: !args.flag('paused'),
    priority: args.wholeNumber('priority', 0) ?? DEFAULT_PRIORITY,
    priceCents: args.requiredCents('price'),
    states: args.codeList('states'),
    minLoanAmountCents: args.cents('min-amount') ?? 0,
    maxLoanAmountCents: args.cents('max-amount') ?? 0,
    postUrl: args.string('post-url') ?? '',
    testPostUrl: args.string('test-post-url') ?? '',
    timeoutMs: args.wholeNumber('timeout-ms', 1) ?? DEFAULT_TIMEOUT_MS,
    redirectUrl: args.string('redirect-url') ?? '',
  }),
  async run(calls, input) {
    const buyer = await calls.upsertBuyer(input);
    const shown = shownSettings(buyer);
    return {
      json: buyer,
      text:
        `Saved buyer "${buyer.name}".\n` +
        fields([
          ['id', buyer.id],
          ['status', shown.status],
          ['priority', String(buyer.priority)],
          ['price', shown.price],
          ['states', shown.states],
          ['loan amount', shown.loanAmount],
          ['post URL', shown.postUrl],
          ['test post URL', shown.testPostUrl],
          ['timeout', `${buyer.timeoutMs} ms`],
          ['redirect URL', shown.redirectUrl],
        ]),
    };
  },
};

const list: Command<void> = {
  group: 'buyer',
  name: 'list',
  synopsis: '',
  summary: 'list buyers and their settings',
  details: ['Prices and loan amounts are in dollars; with --json, in integer cents.'],
  options: {},
  positionals: [],
  parse: () => undefined,
  async run(calls) {
    const buyers = await calls.listBuyers();
    return { json: { buyers }, text: buyers.length === 0 ? 'No buyers.\n' : buyerTable(buyers) };
  },
};

export const buyerCommands = [upsert, list];
