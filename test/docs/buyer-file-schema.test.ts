import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { buyerDocument } from '@leadflow/distribution/src/buyers/definition/buyer-document';
import type { BuyerValues } from '@leadflow/distribution/src/buyers/definition/buyer-values';
import {
  type BuyerDocumentResult,
  parseBuyerDocument,
} from '@leadflow/distribution/src/buyers/definition/parse-buyers';
import { Ajv, type ValidateFunction } from 'ajv';
import { expect } from 'chai';
import { parse } from 'yaml';
import { MARKETS, marketBuyersDocument } from '../bench/market.js';
import { buyerFixture } from '../support/buyer-fixtures.js';

/**
 * The buyer file's JSON Schema (docs/buyer-file.schema.json) is what editors check files with; the parser
 * is what `buyer apply` checks them with. These tests hold the two to one format: every buyer file of the
 * repository and every buyer document of the docs passes both, and each object of the format has the same
 * keys in the schema as in the parser.
 */

const ROOT = path.resolve(import.meta.dirname, '../..');
const SCHEMA_FILE = 'docs/buyer-file.schema.json';
const DEMO_BUYERS = 'services/distribution/src/demo/demo-buyers.yaml';
const DEFINITION_DIR = 'services/distribution/src/buyers/definition';

type Schema = { definitions: Record<string, { properties?: Record<string, unknown> }> };
const schema = JSON.parse(readFileSync(path.join(ROOT, SCHEMA_FILE), 'utf8')) as Schema;

function compile(): ValidateFunction {
  // Union types ("string or number") are how YAML writes amounts: allowed, everything else strict.
  return new Ajv({ allErrors: true, allowUnionTypes: true }).compile(schema);
}
const validate = compile();

/** Every reference resolves, to a value valid anywhere a reference may stand (a host name, a token). */
const ANY_VALUES: BuyerValues = {
  env: () => 'resolved.example',
  secret: () => 'resolved.example',
  secretsProblem: () => undefined,
};

function parsed(document: unknown): BuyerDocumentResult {
  // The parser reads plain values, as the CLI sends them: through JSON.
  return parseBuyerDocument(JSON.parse(JSON.stringify(document)), ANY_VALUES);
}

function schemaErrors(document: unknown): string {
  return validate(JSON.parse(JSON.stringify(document))) ? '' : JSON.stringify(validate.errors, null, 2);
}

/** The buyers of a document both checks accept; fails naming the checks that refused it. */
function expectAccepted(document: unknown, where: string): void {
  const result = parsed(document);
  expect('errors' in result ? result.errors : [], `${where}: the parser's mistakes`).to.deep.equal([]);
  expect(schemaErrors(document), `${where}: the schema's errors`).to.equal('');
}

/** The ```yaml blocks of docs/*.md, each with its page and line. */
function documentedYaml(): { where: string; document: unknown }[] {
  const docsDir = path.join(ROOT, 'docs');
  return readdirSync(docsDir)
    .filter((name) => name.endsWith('.md'))
    .flatMap((name) => {
      const text = readFileSync(path.join(docsDir, name), 'utf8');
      return [...text.matchAll(/^```ya?ml\n([\s\S]*?)^```/gm)].map((match) => {
        const line = text.slice(0, match.index).split('\n').length;
        return { where: `docs/${name}:${line}`, document: parse(match[1]!) as unknown };
      });
    });
}

const isObjectWith = (value: unknown, key: string): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && Object.hasOwn(value, key);

/** Whole buyer documents of the docs (they have `buyers:`). */
function documentedBuyerFiles(): { where: string; document: unknown }[] {
  return documentedYaml().filter(({ document }) => isObjectWith(document, 'buyers'));
}

/** Blocks that show one `post:` exchange, as the direct post of a buyer, so that they are checked whole. */
function documentedPosts(): { where: string; document: unknown }[] {
  return documentedYaml()
    .filter(({ document }) => isObjectWith(document, 'post') && Object.keys(document).length === 1)
    .map(({ where, document }) => ({
      where,
      document: {
        buyers: [{ name: 'documented-post', pricing: { type: 'fixed', price: '1.00' }, integration: document }],
      },
    }));
}

/** Every kind of object of the format, at least once, in a document both checks accept. */
const PROBED_DOCUMENT = buyerFixture('every-object-kind.yaml');

/** Where an object sits in PROBED_DOCUMENT, and the schema definition that describes it. */
interface Probe {
  where: string;
  at: (string | number)[];
  definition: string;
}

const BUYER = ['buyers', 0];
const PROBES: Probe[] = [
  { where: 'the document', at: [], definition: 'document' },
  { where: 'tree', at: ['tree'], definition: 'tree' },
  { where: 'a tier of the tree', at: ['tree', 'tiers', 0], definition: 'tierSettings' },
  { where: 'a buyer', at: BUYER, definition: 'buyer' },
  { where: 'a filter combination', at: [...BUYER, 'filters'], definition: 'combination' },
  { where: 'a filter condition', at: [...BUYER, 'filters', 'all', 0], definition: 'condition' },
  { where: 'a range', at: [...BUYER, 'filters', 'all', 1, 'any', 0, 'range'], definition: 'range' },
  { where: 'schedule', at: [...BUYER, 'schedule'], definition: 'schedule' },
  { where: 'schedule.hours', at: [...BUYER, 'schedule', 'hours'], definition: 'hours' },
  { where: 'caps', at: [...BUYER, 'caps'], definition: 'caps' },
  { where: 'duplicates', at: [...BUYER, 'duplicates'], definition: 'duplicates' },
  { where: 'pricing', at: [...BUYER, 'pricing'], definition: 'pricing' },
  { where: 'a price rule', at: [...BUYER, 'pricing', 'rules', 0], definition: 'priceRule' },
  { where: 'payout', at: [...BUYER, 'payout'], definition: 'payout' },
  { where: 'returns', at: [...BUYER, 'returns'], definition: 'returns' },
  { where: 'returns.maxRate', at: [...BUYER, 'returns', 'maxRate'], definition: 'returnMaxRate' },
  {
    where: "a publisher's payout",
    at: [...BUYER, 'payout', 'publishers', 'pub_01JD4T9Q2M8V5X6Y7Z8A9B0C1D'],
    definition: 'payoutTerms',
  },
  { where: 'integration', at: [...BUYER, 'integration'], definition: 'integration' },
  { where: 'ping', at: [...BUYER, 'integration', 'ping'], definition: 'exchange' },
  { where: 'post', at: [...BUYER, 'integration', 'post'], definition: 'exchange' },
  { where: 'statusLookup', at: [...BUYER, 'integration', 'statusLookup'], definition: 'exchange' },
  { where: 'auth', at: [...BUYER, 'integration', 'ping', 'auth'], definition: 'auth' },
  { where: 'auth.basic', at: [...BUYER, 'integration', 'post', 'auth', 'basic'], definition: 'basicAuth' },
  {
    where: 'a mapping source',
    at: [...BUYER, 'integration', 'post', 'mapping', 'dob'],
    definition: 'mappingSourceObject',
  },
  {
    where: 'a transform',
    at: [...BUYER, 'integration', 'post', 'mapping', 'dob', 'transform'],
    definition: 'transformObject',
  },
  { where: 'a response', at: [...BUYER, 'integration', 'post', 'response'], definition: 'response' },
  { where: 'response.accepted', at: [...BUYER, 'integration', 'post', 'response', 'accepted'], definition: 'accepted' },
  { where: 'a located value', at: [...BUYER, 'integration', 'ping', 'response', 'price'], definition: 'locator' },
];

/** A key no real one is close to: the parser then lists every key it expected. */
const UNKNOWN_KEY = 'zzzzzzzzzz';

/** The keys the parser reads at `at`: what it lists when it meets an unknown key there. */
function parserKeys(at: (string | number)[]): string[] {
  const document = parse(PROBED_DOCUMENT) as Record<string, unknown>;
  let object = document;
  for (const step of at) object = (object as Record<string | number, unknown>)[step] as Record<string, unknown>;
  object[UNKNOWN_KEY] = 1;
  const result = parseBuyerDocument(document, ANY_VALUES);
  const message =
    ('errors' in result ? result.errors : []).find((problem) => problem.path.endsWith(UNKNOWN_KEY))?.message ?? '';
  const listed = /^unknown key; expected one of: (.+)$/.exec(message);
  if (!listed) expect.fail(`the parser did not refuse an unknown key at ${JSON.stringify(at)}: ${message}`);
  return listed[1].split(', ');
}

/** The keys a schema definition allows; a definition that is "text or {path}" is its object form. */
function schemaKeys(name: string): string[] {
  const definition = schema.definitions[name] as {
    properties?: Record<string, unknown>;
    anyOf?: { properties?: Record<string, unknown> }[];
  };
  const properties = definition.properties ?? definition.anyOf?.find((branch) => branch.properties)?.properties;
  if (!properties) expect.fail(`${SCHEMA_FILE}: definition ${name} has no properties`);
  return Object.keys(properties);
}

/** A value the parser refuses where a name from a closed set is expected, and the schema's enum there. */
interface ChoiceProbe {
  where: string;
  at: (string | number)[];
  definition: string;
  property: string;
}

const INTEGRATION = [...BUYER, 'integration'];
const CHOICE_PROBES: ChoiceProbe[] = [
  { where: 'tree.routing', at: ['tree', 'routing'], definition: 'tree', property: 'routing' },
  { where: 'integration.mode', at: [...INTEGRATION, 'mode'], definition: 'integration', property: 'mode' },
  {
    where: 'integration.testBehaviour',
    at: [...INTEGRATION, 'testBehaviour'],
    definition: 'integration',
    property: 'testBehaviour',
  },
  {
    where: 'integration.onTimeout',
    at: [...INTEGRATION, 'onTimeout'],
    definition: 'integration',
    property: 'onTimeout',
  },
  {
    where: 'response.format',
    at: [...INTEGRATION, 'post', 'response', 'format'],
    definition: 'response',
    property: 'format',
  },
  {
    where: 'response.priceChange',
    at: [...INTEGRATION, 'post', 'response', 'priceChange'],
    definition: 'response',
    property: 'priceChange',
  },
  { where: 'pricing.type', at: [...BUYER, 'pricing', 'type'], definition: 'pricing', property: 'type' },
  { where: 'a filter field', at: [...BUYER, 'filters', 'all', 0, 'field'], definition: 'condition', property: 'field' },
  {
    where: 'a mapping source',
    at: [...INTEGRATION, 'post', 'mapping', 'dob', 'field'],
    definition: 'mappingSourceObject',
    property: 'field',
  },
  {
    where: 'a money transform',
    at: [...INTEGRATION, 'post', 'mapping', 'amount', 'transform'],
    definition: 'transformObject',
    property: 'money',
  },
];

/** The names the parser lists when `at` holds a name it does not know. */
function parserChoices(probe: ChoiceProbe): string[] {
  const document = parse(PROBED_DOCUMENT) as Record<string, unknown>;
  const parent = probe.at
    .slice(0, -1)
    .reduce<Record<string | number, unknown>>((node, step) => node[step] as Record<string | number, unknown>, document);
  const key = probe.at.at(-1)!;
  // A transform is probed as {money: UNKNOWN}; every other place takes the unknown name itself.
  parent[key] = probe.property === 'money' ? { money: UNKNOWN_KEY } : UNKNOWN_KEY;
  const result = parseBuyerDocument(document, ANY_VALUES);
  const messages = ('errors' in result ? result.errors : []).map((problem) => problem.message);
  const listed = messages
    .map((message) => /(?:must be|expected) one of: (.+)$/.exec(message)?.[1])
    .find((list) => list !== undefined);
  if (!listed) expect.fail(`the parser listed no choices at ${probe.where}: ${messages.join('; ')}`);
  return listed.split(', ');
}

/** The enum of a property, through the "or left empty" wrapper. */
function schemaChoices(definition: string, property: string): unknown[] {
  type Node = { enum?: unknown[]; anyOf?: Node[] };
  const node = (schema.definitions[definition]!.properties as Record<string, Node>)[property]!;
  const choices = node.enum ?? node.anyOf?.find((branch) => branch.enum)?.enum;
  if (!choices) expect.fail(`${SCHEMA_FILE}: ${definition}.${property} has no enum`);
  return choices;
}

describe('docs: the buyer file schema and the parser', () => {
  it('the schema is a valid draft-07 schema that the YAML language server can read', () => {
    expect((schema as { $schema?: string }).$schema).to.equal('http://json-schema.org/draft-07/schema#');
    expect(compile).not.to.throw();
  });

  it('accepts the demo buyers, as npm start applies them, with both checks', () => {
    const text = readFileSync(path.join(ROOT, DEMO_BUYERS), 'utf8');
    expect(text.split('\n')[0], 'its first line points editors at the schema').to.equal(
      '# yaml-language-server: $schema=../../../../docs/buyer-file.schema.json',
    );
    expect(
      path.resolve(path.dirname(path.join(ROOT, DEMO_BUYERS)), '../../../../docs/buyer-file.schema.json'),
    ).to.equal(path.join(ROOT, SCHEMA_FILE));
    expectAccepted(parse(text.replaceAll('SIMULATOR_URL', 'http://127.0.0.1:4010')), DEMO_BUYERS);
  });

  it('accepts the buyers the bench applies to its simulated markets', () => {
    for (const market of Object.values(MARKETS))
      expectAccepted(marketBuyersDocument(market, 'http://127.0.0.1:4010'), `test/bench market ${market.name}`);
  });

  it('accepts every buyer document of the docs, with both checks', () => {
    const documents = documentedBuyerFiles();
    // The reference's worked examples and the lender mappings at least: a lost extraction must not pass.
    expect(documents.length, 'buyer documents found in docs/*.md').to.be.at.least(6);
    for (const { where, document } of documents) expectAccepted(document, where);
  });

  it('accepts every post the docs show on its own, as a direct post', () => {
    const posts = documentedPosts();
    expect(posts.length, 'post examples found in docs/*.md').to.be.at.least(2);
    for (const { where, document } of posts) expectAccepted(document, where);
  });

  it('accepts stored definitions written back in file form', () => {
    const documents = [
      parse(readFileSync(path.join(ROOT, DEMO_BUYERS), 'utf8').replaceAll('SIMULATOR_URL', 'http://127.0.0.1:4010')),
      ...documentedBuyerFiles().map(({ document }) => document),
    ];
    for (const document of documents) {
      const result = parsed(document);
      if ('errors' in result) expect.fail('checked above');
      for (const buyer of result.buyers) expect(schemaErrors(buyerDocument(buyer)), buyer.name).to.equal('');
    }
  });

  it('refuses what the parser refuses for its shape: unknown keys, wrong types, choices and ranges', () => {
    const base = parse(PROBED_DOCUMENT) as Record<string, unknown>;
    // biome-ignore lint/suspicious/noExplicitAny: each variant reaches into the parsed document at its own depth
    const variants: [string, (buyer: Record<string, any>) => void][] = [
      ['an unknown buyer key', (buyer) => (buyer.leadPerDay = 3)],
      ['a tier of 0', (buyer) => (buyer.tier = 0)],
      ['a timeout over 60 s', (buyer) => (buyer.integration.postTimeoutMs = 60_001)],
      ['an unknown onTimeout', (buyer) => (buyer.integration.onTimeout = 'retry')],
      ['a price with bid pricing', (buyer) => (buyer.pricing = { type: 'bid', price: '10.00' })],
      [
        'two auth kinds',
        (buyer) => (buyer.integration.post.auth = { bearer: 't', basic: { username: 'u', password: 'p' } }),
      ],
      [
        'an accepted rule with two matchers',
        (buyer) => (buyer.integration.post.response.accepted = { path: '$.s', equals: 'a', in: ['b'] }),
      ],
      [
        'a transform default without map',
        (buyer) =>
          (buyer.integration.post.mapping.dob = { field: 'dob', transform: { date: 'MM/DD/YYYY', default: 'x' } }),
      ],
      ['an unknown mapping source', (buyer) => (buyer.integration.post.mapping.x = 'socialSecurityNumber')],
      ['a day that is not one', (buyer) => (buyer.schedule.days = ['monday'])],
      ['an unknown priceChange', (buyer) => (buyer.integration.post.response.priceChange = 'keep')],
    ];
    expectAccepted(base, 'the probed document');
    for (const [what, change] of variants) {
      // biome-ignore lint/suspicious/noExplicitAny: as above, the variants write anywhere in the buyer
      const document = structuredClone(base) as { buyers: Record<string, any>[] };
      change(document.buyers[0]);
      expect('errors' in parsed(document), `the parser refuses ${what}`).to.equal(true);
      expect(schemaErrors(document), `the schema refuses ${what}`).not.to.equal('');
    }
  });

  describe('every object of the format has the same keys and choices in the schema as in the parser', () => {
    for (const probe of PROBES) {
      it(`${probe.where} (schema: ${probe.definition})`, () => {
        expect(parserKeys(probe.at)).to.have.members(schemaKeys(probe.definition));
      });
    }

    for (const probe of CHOICE_PROBES) {
      it(`the choices of ${probe.where}`, () => {
        expect(schemaChoices(probe.definition, probe.property)).to.have.members(parserChoices(probe));
      });
    }

    it('probes every object the parser reads', () => {
      // Each readObject call in the parser reads one kind of object: a new one needs its probe and its schema.
      const calls = readdirSync(path.join(ROOT, DEFINITION_DIR))
        .filter((name) => name.startsWith('parse-') && name.endsWith('.ts'))
        .reduce(
          (count, name) =>
            count + (readFileSync(path.join(ROOT, DEFINITION_DIR, name), 'utf8').match(/\breadObject\(/g)?.length ?? 0),
          0,
        );
      expect(new Set(PROBES.map((probe) => probe.definition)).size, 'object kinds probed').to.equal(calls);
    });
  });
});
