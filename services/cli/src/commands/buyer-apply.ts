import { MAX_RECEIVED_MESSAGE_BYTES } from '@leadflow/distribution';
import { ApplyBuyersRequest, ApplyBuyersResponse, type DocumentError } from '@leadflow/proto/leadflow/admin/v1/admin';
import { applyActions } from '@leadflow/service-kit/admin-enums';
import { documentRefused, mistakesOutput } from '../document-mistakes.js';
import { columns } from '../format.js';
import { messageJson } from '../json-output.js';
import { nonFiniteNumbers } from '../non-finite-numbers.js';
import { readSourceDocument, type SourceDocument } from '../source-document.js';
import type { Command, CommandOutput } from './command.js';

export interface ApplyInput {
  document: SourceDocument;
  /** Mistakes found before sending: values the JSON sent cannot carry. */
  unsendable: DocumentError[];
  dryRun: boolean;
}

/**
 * The service refuses a larger request unread, with a gRPC error that names no file: said before
 * sending, with what to do.
 */
function checkRequestSize(document: SourceDocument): void {
  const bytes = ApplyBuyersRequest.encode({ documentJson: document.json, dryRun: true }).finish().length;
  if (bytes <= MAX_RECEIVED_MESSAGE_BYTES) return;
  throw documentRefused(
    document.name,
    `the document makes a request of ${bytes} bytes, over the ${MAX_RECEIVED_MESSAGE_BYTES / 2 ** 20} MiB (${MAX_RECEIVED_MESSAGE_BYTES} bytes) the service takes in one apply: split its buyers over several files (apply leaves alone the buyers a file does not name)`,
  );
}

/** Whether `path` is `ancestor` or lies under it ("" is the whole document). */
function isWithin(path: string, ancestor: string): boolean {
  if (!path.startsWith(ancestor)) return false;
  return (
    ancestor === '' || path.length === ancestor.length || path[ancestor.length] === '.' || path[ancestor.length] === '['
  );
}

/**
 * Every mistake of the document: those found before sending, then the service's, but for what it says of
 * a value it got as null instead (at that value, or at what holds it, such as "is required").
 */
function allMistakes(unsendable: DocumentError[], response: ApplyBuyersResponse): DocumentError[] {
  const independent = response.errors.filter((error) => !unsendable.some(({ path }) => isWithin(path, error.path)));
  return [...unsendable, ...independent];
}

/** What the apply did to the tree's settings, when the document has a `tree`. */
function treeText(response: ApplyBuyersResponse, input: ApplyInput): string {
  const action = response.tree === undefined ? undefined : applyActions.nameOf(response.tree);
  if (action === undefined) return '';
  return `${input.dryRun ? `would be ${action}` : action}  tree settings (\`leadflow buyer tree\` shows them)\n`;
}

function appliedText(response: ApplyBuyersResponse, input: ApplyInput): string {
  return buyersText(response, input) + treeText(response, input);
}

function buyersText(response: ApplyBuyersResponse, input: ApplyInput): string {
  if (response.buyers.length === 0) return `No buyers in ${input.document.name}.\n`;
  const table = columns(
    response.buyers.map((buyer) => {
      const action = applyActions.nameOf(buyer.action) ?? '-';
      return [
        input.dryRun ? `would be ${action}` : action,
        buyer.name,
        // A dry run's new buyer gets its id only when it is created for real.
        input.dryRun && action === 'created' ? '-' : buyer.id,
        buyer.paused ? 'paused' : '',
      ];
    }),
  );
  const paused = response.buyers
    .filter((buyer) => buyer.paused && applyActions.nameOf(buyer.action) !== 'created')
    .map((buyer) => buyer.name);
  if (paused.length === 0) return table;
  const resume = paused.length === 1 ? `leadflow buyer resume ${paused[0]}` : 'leadflow buyer resume NAME';
  return `${table}${paused.join(', ')} ${paused.length === 1 ? 'stays' : 'stay'} paused: apply never resumes a buyer; \`${resume}\` offers it leads again.\n`;
}

export const apply: Command<ApplyInput> = {
  group: 'buyer',
  name: 'apply',
  synopsis: '-f FILE [--dry-run]',
  summary: 'create or update the buyers a YAML or JSON document declares',
  details: [
    '-f, --file FILE   the document, YAML or JSON; - reads standard input',
    '--dry-run         check the document and say what would change, change nothing',
    'Buyers are matched by name; buyers the document does not name are left alone. A `tree` key',
    "replaces the tree's routing mode and ping windows (`leadflow buyer tree`); without one they are left.",
    'Prints "created", "updated" or "unchanged" with the name and id of each buyer, and "paused" after a',
    'paused one: a paused buyer stays paused whatever the file says (`active: false` pauses one); only',
    '`leadflow buyer resume` resumes it.',
    'A document with mistakes changes nothing: each is printed as FILE:LINE:COLUMN: PATH: MESSAGE',
    '(no PATH for a mistake of the whole file, such as its syntax) on stderr, and the exit code is 1.',
    'With --json, {"errors": [{path, message, line, column}]} on stdout.',
    'A document is at most 1 MiB as JSON, the largest request the service takes: split a larger one.',
  ],
  options: { file: { type: 'string', short: 'f' }, 'dry-run': { type: 'boolean' } },
  positionals: [],
  async parse(args, stdin) {
    const document = await readSourceDocument(args.requiredString('file'), stdin);
    checkRequestSize(document);
    return { document, unsendable: nonFiniteNumbers(document.value), dryRun: args.flag('dry-run') };
  },
  async run(calls, input): Promise<CommandOutput> {
    // With values it cannot send, the service still checks the rest, so that one pass finds every mistake.
    const checkOnly = input.dryRun || input.unsendable.length > 0;
    const response = await calls.applyBuyers(input.document.json, checkOnly);
    const errors = allMistakes(input.unsendable, response);
    if (errors.length > 0) {
      const mistakes = errors.map((error) => ({ error, position: input.document.locate(error.path) }));
      return mistakesOutput(input.document.name, mistakes);
    }
    return { json: messageJson(ApplyBuyersResponse, response), text: appliedText(response, input) };
  },
};
