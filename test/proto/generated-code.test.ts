import { execFile } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { expect } from 'chai';
import {
  DESCRIPTOR_SET_DIRECTORY,
  DESCRIPTOR_SETS,
} from '../../packages/distribution/src/observability/descriptor-sets.js';
import { buildDescriptorSets } from '../../scripts/build-descriptor-sets.js';

const run = promisify(execFile);
const root = process.cwd();
const committed = path.join(root, 'packages/proto/src');

async function filesUnder(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  return entries
    .filter((entry) => entry.isFile())
    .map((entry) => path.relative(dir, path.join(entry.parentPath, entry.name)))
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
    const regenerated = path.join(fresh, 'packages/proto/src');
    const files = await filesUnder(regenerated);
    expect(files).to.deep.equal(await filesUnder(committed));
    for (const file of files) {
      const expected = await readFile(path.join(regenerated, file), 'utf8');
      expect(await readFile(path.join(committed, file), 'utf8'), file).to.equal(expected);
    }
  });

  it('has the descriptor sets reflection serves byte for byte as buf builds them today', async () => {
    const sets = DESCRIPTOR_SETS.map(({ name }) => path.join(DESCRIPTOR_SET_DIRECTORY, name));
    expect(sets).to.include('packages/proto/descriptor-sets/leadflow.binpb');
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
