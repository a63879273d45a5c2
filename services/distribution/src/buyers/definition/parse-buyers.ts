/**
 * The buyer file of `leadflow buyer apply -f FILE`, YAML or JSON, already parsed into plain values.
 *
 * A document is `{buyers: [...], tree: {...}}` (either key may be left out), a bare list of buyers, or
 * one buyer. `tree` sets how the ping tree sells (parse-tree.ts). Names are camelCase; every key
 * not read here is a mistake (a typo must not silently mean "not set"); a key left empty (`caps:`)
 * is the same as one left out. Dollars are written "25.00", "25" or 25 and become integer cents.
 *
 * Every key, with its type, default and meaning, is documented in docs/buyer-file.md, and described for
 * editors by docs/buyer-file.schema.json; test/docs/buyer-file-schema.test.ts fails when the schema and
 * the keys the parse-*.ts readers accept part ways. services/distribution/src/demo/demo-buyers.yaml is a
 * complete example.
 */
import type { TreeSettings } from '../tree/tree-settings.js';
import type { BuyerDefinition } from './buyer-definition.js';
import { type BuyerValues, serviceValues } from './buyer-values.js';
import { parseBuyer } from './parse-buyer.js';
import { parseTree } from './parse-tree.js';
import { indexPath, keyPath, type Problem, Problems } from './problems.js';
import { isAbsent, isPlainObject, readList, readObject } from './read-values.js';

/** `tree`: present when the document sets the tree's settings. */
export type BuyerDocumentResult = { buyers: BuyerDefinition[]; tree?: TreeSettings } | { errors: Problem[] };

const DOCUMENT_SHAPE = '{buyers: [...], tree: {...}}, a list of buyers or one buyer';

interface ListedDocument {
  /** Each buyer with the path it sits at ("buyers[0]", "[0]", or "" for a lone buyer). */
  buyers: { value: unknown; path: string }[];
  tree: unknown;
}

function listedDocument(document: unknown, problems: Problems): ListedDocument {
  const listAt = (value: unknown, path: string) =>
    (readList(value, path, problems) ?? []).map((item, index) => ({ value: item, path: indexPath(path, index) }));
  if (Array.isArray(document)) return { buyers: listAt(document, ''), tree: undefined };
  if (!isPlainObject(document)) {
    problems.at('', `must be ${DOCUMENT_SHAPE}`);
    return { buyers: [], tree: undefined };
  }
  if (!Object.hasOwn(document, 'buyers') && !Object.hasOwn(document, 'tree')) {
    return { buyers: [{ value: document, path: '' }], tree: undefined };
  }
  const fields = readObject(document, '', ['buyers', 'tree'], problems);
  return { buyers: isAbsent(fields?.buyers) ? [] : listAt(fields?.buyers, 'buyers'), tree: fields?.tree };
}

/** apply matches on names, and MySQL compares them ignoring case. */
function checkUniqueNames(listed: { value: unknown; path: string }[], problems: Problems): void {
  const firstPathOf = new Map<string, string>();
  for (const { value, path } of listed) {
    if (!isPlainObject(value) || typeof value.name !== 'string') continue;
    const key = value.name.toLowerCase();
    const first = firstPathOf.get(key);
    if (first === undefined) firstPathOf.set(key, path);
    else problems.at(keyPath(path, 'name'), `repeats the name of ${first} (names ignore case)`);
  }
}

/**
 * Every buyer of an apply document, or every mistake in it, each with its path
 * (`buyers[0].integration.post.mapping["applicant.ssn"].transform[1]`; "" is the document itself).
 * Every ${env:...} and ${secret:...} must resolve in `values` (the service's own, by default).
 * Messages never repeat a value of the document. Never throws.
 */
export function parseBuyerDocument(document: unknown, values: BuyerValues = serviceValues()): BuyerDocumentResult {
  const problems = new Problems();
  const listed = listedDocument(document, problems);
  const buyers = listed.buyers.map(({ value, path }) => parseBuyer(value, path, values, problems));
  checkUniqueNames(listed.buyers, problems);
  const tree = isAbsent(listed.tree) ? undefined : parseTree(listed.tree, 'tree', problems);
  if (problems.found.length > 0) return { errors: problems.found };
  return { buyers: buyers.filter((buyer) => buyer !== undefined), ...(tree && { tree }) };
}
