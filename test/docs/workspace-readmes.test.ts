import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import { REPOSITORY_ROOT, workspacePackages } from '../support/workspaces.js';

/** A README's section under `## heading`, up to the next one. */
function section(text: string, heading: string): string | undefined {
  return new RegExp(`^## ${heading}\\n([\\s\\S]*?)(?=^## |(?![\\s\\S]))`, 'm').exec(text)?.[1];
}

/** The test paths a section's commands name, each up to its first wildcard: what must exist for them to run anything. */
function testPaths(text: string): string[] {
  const commands = [...text.matchAll(/^```sh\n([\s\S]*?)^```/gm)].map((block) => block[1]!).join('\n');
  return [...commands.matchAll(/(?<=[\s'])(test\/[^\s']+)/g)].map(([, target]) => target!.split('*')[0]!);
}

describe("docs: each workspace's README", () => {
  for (const workspace of workspacePackages()) {
    it(`${workspace}: says what it is, its entry, and runs tests that exist`, () => {
      const file = path.join(REPOSITORY_ROOT, workspace, 'README.md');
      expect(existsSync(file), `${workspace}/README.md`).to.equal(true);
      const text = readFileSync(file, 'utf8');
      expect(text).to.match(/^# .+\n\n\S/, 'a title, then what it is');
      expect(section(text, 'Entry'), 'an Entry section').to.be.a('string');
      const tests = section(text, 'Tests');
      expect(tests, 'a Tests section').to.be.a('string');
      const paths = testPaths(tests!);
      expect(paths, 'the Tests section names the tests to run').to.not.be.empty;
      for (const target of paths) expect(existsSync(path.join(REPOSITORY_ROOT, target)), target).to.equal(true);
    });
  }
});
