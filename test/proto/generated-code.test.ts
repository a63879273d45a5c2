import { execFile } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { expect } from 'chai';

const run = promisify(execFile);
const root = process.cwd();
const committed = path.join(root, 'proto/generated');

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
  });
  after(() => rm(fresh, { recursive: true, force: true }));

  it('is what the protos generate today (run `npm run generate` after editing proto/)', async () => {
    const regenerated = path.join(fresh, 'proto/generated');
    const files = await filesUnder(regenerated);
    expect(files).to.deep.equal(await filesUnder(committed));
    for (const file of files) {
      const expected = await readFile(path.join(regenerated, file), 'utf8');
      expect(await readFile(path.join(committed, file), 'utf8'), file).to.equal(expected);
    }
  });
});
