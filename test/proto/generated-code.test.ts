import { execFile } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { buildDescriptorSets } from '@leadflow/proto/build-descriptor-sets';
import { DESCRIPTOR_SET_DIRECTORY, DESCRIPTOR_SETS } from '@leadflow/proto/descriptor-set-sources';
import { expect } from 'chai';

const run = promisify(execFile);
const root = process.cwd();
const committed = path.join(root, 'proto');

/**
 * The generated TypeScript files under dir, beside the .proto files (its build output left out). buf writes
 * each one in its package's folder: the files at the top of proto/ are the hand-written descriptor-set tools.
 */
async function generatedFilesUnder(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  return entries
    .filter((entry) => entry.isFile() && entry.name.endsWith('.ts'))
    .map((entry) => path.relative(dir, path.join(entry.parentPath, entry.name)))
    .filter((file) => file.includes(path.sep) && !/^(dist|node_modules)\//.test(file))
    .sort();
}

describe('generated gRPC code', function () {
  this.timeout(60_000);
  let fresh: string;

  before(async () => {
    fresh = await mkdtemp(path.join(tmpdir(), 'leadflow-codegen-'));
    const bin = path.join(root, 'node_modules/.bin');
    await run(path.join(bin, 'buf'), ['generate', '--output', fresh], {
      cwd: root,
      env: { ...process.env, PATH: `${bin}${path.delimiter}${process.env.PATH}` },
    });
    buildDescriptorSets(fresh);
  });
  after(() => rm(fresh, { recursive: true, force: true }));

  it('is what the protos generate today (run `npm run generate` after editing proto/)', async () => {
    const regenerated = path.join(fresh, 'proto');
    const files = await generatedFilesUnder(regenerated);
    expect(files).to.deep.equal(await generatedFilesUnder(committed));
    for (const file of files) {
      const expected = await readFile(path.join(regenerated, file), 'utf8');
      expect(await readFile(path.join(committed, file), 'utf8'), file).to.equal(expected);
    }
  });

  it('has the descriptor sets reflection serves byte for byte as buf builds them today', async () => {
    const sets = DESCRIPTOR_SETS.map(({ name }) => path.join(DESCRIPTOR_SET_DIRECTORY, name));
    expect(sets).to.include('proto/descriptor-sets/leadflow.binpb');
    for (const file of sets) {
      const rebuilt = await readFile(path.join(fresh, file));
      expect(rebuilt.length, file).to.be.greaterThan(0);
      expect(
        Buffer.compare(await readFile(path.join(root, file)), rebuilt),
        `${file} is stale: run npm run generate`,
      ).to.equal(0);
    }
  });
});
