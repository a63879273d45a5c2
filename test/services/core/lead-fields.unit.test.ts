import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { valueSchema } from '@leadflow/core/lead-field-rules';
import {
  LEAD_FIELDS,
  type LeadField,
  leadFieldFacts,
  REQUIRED_LEAD_FIELDS,
  SENSITIVE_LEAD_FIELDS,
} from '@leadflow/core/lead-fields';
import { PING_WITHHELD_FIELDS } from '@leadflow/distribution/src/buyers/integration/ping-lead';
import { fieldKind } from '@leadflow/distribution/src/buyers/rules/filter-fields';
import { validateLead } from '@leadflow/distribution/src/leads/validation';
import type { Lead } from '@leadflow/proto/leadflow/distribution/v1/distribution';
import { expect } from 'chai';
import fc from 'fast-check';
import { anyLead, NOW, validLead } from '../../support/lead-arbitraries.js';

const ROOT = join(import.meta.dirname, '../../..');

describe('the lead-field catalogue', () => {
  it('withholds every personal field from pings', () => {
    expect(PING_WITHHELD_FIELDS).to.include.members(SENSITIVE_LEAD_FIELDS);
  });

  it('gives filters amounts in dollars, months as numbers and the test flag as a boolean', () => {
    const kinds = Object.fromEntries(LEAD_FIELDS.map((field) => [field, fieldKind(field)]));
    expect(Object.entries(kinds).filter(([, kind]) => kind !== 'text')).to.deep.equal([
      ['price', 'dollars'],
      ['loanAmount', 'dollars'],
      ['testMode', 'boolean'],
      ['incomeNetMonthly', 'dollars'],
      ['bankAccountLengthMonths', 'number'],
      ['addressLengthMonths', 'number'],
    ]);
  });

  describe('OpenAPI facts', () => {
    /** Whether a value validation accepted (trimmed, non-empty) fits the schema the document gives it. */
    function expectFits(field: LeadField, text: string): void {
      const schema = valueSchema(leadFieldFacts(field).rule);
      const why = `${field}: ${JSON.stringify(text)}`;
      if (schema.pattern !== undefined) expect(new RegExp(schema.pattern, 'u').test(text), why).to.equal(true);
      // JSON Schema counts code points, as validation does.
      if (schema.maxLength !== undefined) expect([...text].length, why).to.be.at.most(schema.maxLength);
      // Enums list the stored, upper-case form; validation also takes lower case.
      if (schema.enum !== undefined) expect(schema.enum, why).to.include(text.toUpperCase());
    }

    function expectAcceptedValuesFit(lead: Lead): void {
      const result = validateLead(lead, [], NOW);
      const errors = result.ok ? {} : result.errors;
      for (const field of LEAD_FIELDS) {
        const text = lead[field].trim();
        if (text !== '' && !(field in errors)) expectFits(field, text);
      }
    }

    it('describe every value validation accepts, in every way it may be written', () => {
      fc.assert(
        fc.property(validLead(fc.constant(NOW)), ({ lead }) => expectAcceptedValuesFit(lead)),
        { numRuns: 300 },
      );
    });

    it('describe every value validation accepts among mangled and arbitrary ones', () => {
      fc.assert(
        fc.property(anyLead, ({ lead }) => expectAcceptedValuesFit(lead)),
        { numRuns: 500 },
      );
    });

    it('refuse what validation refuses for its form', () => {
      const refused: Array<[LeadField, string]> = [
        ['zip', '1234'],
        ['ssn', '12-345-6789'],
        ['homePhone', '555 234 567'],
        ['homePhone', '+2 555 234 5678'],
        ['clickid', 'has space'],
        ['bankAccountNumber', '123'],
        ['addressLengthMonths', '12345'],
        ['price', '1.234'],
      ];
      for (const [field, text] of refused) {
        const { pattern } = valueSchema(leadFieldFacts(field).rule);
        expect(new RegExp(pattern ?? '', 'u').test(text), `${field}: ${text}`).to.equal(false);
      }
    });
  });
});

interface DocumentedField {
  names: string[];
  required: string;
}

function markdownFiles(): string[] {
  const docs = join(ROOT, 'docs');
  let pages: string[] = [];
  try {
    pages = readdirSync(docs, { recursive: true, encoding: 'utf8' }).filter((name) => name.endsWith('.md'));
  } catch {
    // No docs/ folder: the README holds the reference.
  }
  return [join(ROOT, 'README.md'), ...pages.map((name) => join(docs, name))];
}

const INTAKE_HEADING = /^#{1,6} .*\/api\/intake\/\{webmasterKey\}/;

/** The rows of the field table under the intake endpoint's heading, in every page that has one. */
function documentedFieldTables(): Array<{ page: string; rows: DocumentedField[] }> {
  const tables: Array<{ page: string; rows: DocumentedField[] }> = [];
  for (const page of markdownFiles()) {
    const lines = readFileSync(page, 'utf8').split('\n');
    const heading = lines.findIndex((line) => INTAKE_HEADING.test(line));
    if (heading === -1) continue;
    const nextHeading = lines.findIndex((line, index) => index > heading && line.startsWith('#'));
    const section = lines.slice(heading + 1, nextHeading === -1 ? undefined : nextHeading);
    const header = section.findIndex((line) => /^\|\s*field\s*\|\s*required\s*\|/.test(line));
    if (header === -1) continue;
    const rows: DocumentedField[] = [];
    for (const line of section.slice(header + 2)) {
      if (!line.startsWith('|')) break;
      const [names = '', required = ''] = line
        .split('|')
        .slice(1)
        .map((cell) => cell.trim());
      rows.push({ names: [...names.matchAll(/`([^`]+)`/g)].map((match) => match[1]), required });
    }
    tables.push({ page, rows });
  }
  return tables;
}

describe('the documented lead fields', () => {
  const tables = documentedFieldTables();

  it('are in a table under the intake endpoint heading', () => {
    expect(tables, 'a "| field | required | rule |" table under the POST /api/intake heading').not.to.be.empty;
  });

  it('are every field of the catalogue, each once, required as the catalogue says', () => {
    const required: ReadonlySet<string> = new Set(REQUIRED_LEAD_FIELDS);
    for (const { page, rows } of tables) {
      const names = rows.flatMap((row) => row.names);
      expect([...names].sort(), page).to.deep.equal([...LEAD_FIELDS].sort());
      for (const row of rows) {
        for (const name of row.names) {
          expect(row.required, `${page}: ${name}`).to.equal(required.has(name) ? 'yes' : 'no');
        }
      }
    }
  });
});
