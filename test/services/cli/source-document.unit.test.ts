import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { Readable } from 'node:stream';
import { FailedCommand } from '@leadflow/cli/src/errors';
import { readSourceDocument, type SourceDocument } from '@leadflow/cli/src/source-document';
import { expect } from 'chai';
import { withTempDir } from '../../bench/temp-dir.js';

const NO_STDIN = Readable.from([]);

const YAML_DOC = `# two buyers
buyers:
  - name: lender-a
    tier: 1
    integration:
      post:
        url: http://127.0.0.1:9/post
        headers:
          X-Api-Key: secret
        mapping:
          applicant.firstName: { field: firstName }
  - name: lender-b
    tier: -3
`;

async function readText(fileName: string, text: string): Promise<SourceDocument> {
  return withTempDir(async (dir) => {
    const file = path.join(dir, fileName);
    await writeFile(file, text);
    const document = await readSourceDocument(file, NO_STDIN);
    expect(document.name).to.equal(file);
    return document;
  });
}

/** The one mistake the document is refused for, as printed: FILE[:LINE:COL]: MESSAGE. */
async function failure(fileName: string, text: string): Promise<string> {
  try {
    await readText(fileName, text);
  } catch (error) {
    expect(error).to.be.instanceOf(FailedCommand);
    const [line, summary] = (error as FailedCommand).output.text.split('\n');
    expect(summary).to.match(/^leadflow: 1 mistake in .*; nothing was applied$/);
    // The line names the temporary file first; the rest is what matters.
    return line.replace(/^.*?(?=(:\d+:\d+)?: )/, 'FILE');
  }
  throw new Error('expected the document to be refused');
}

describe('leadflow CLI: reading a YAML or JSON document', () => {
  it('reads YAML and finds paths to the key they name', async () => {
    const document = await readText('buyers.yaml', YAML_DOC);
    expect(document.value).to.have.nested.property('buyers[1].tier', -3);
    expect(document.locate('buyers[1].tier')).to.deep.equal({ line: 13, column: 5 });
    expect(document.locate('buyers[1]')).to.deep.equal({ line: 12, column: 5 });
    expect(document.locate('buyers[0].integration.post.url')).to.deep.equal({ line: 7, column: 9 });
    expect(document.locate('buyers[0].integration.post.headers["X-Api-Key"]')).to.deep.equal({ line: 9, column: 11 });
    // A key holding a dot, written without quotes in the path.
    expect(document.locate('buyers[0].integration.post.mapping.applicant.firstName')).to.deep.equal({
      line: 11,
      column: 11,
    });
    expect(document.locate('buyers[0].integration.post.mapping["applicant.firstName"].field')).to.deep.equal({
      line: 11,
      column: 34,
    });
  });

  it('points a path past what the document holds at the deepest part that exists', async () => {
    const document = await readText('buyers.yaml', YAML_DOC);
    // lender-b has no pricing: the buyer itself.
    expect(document.locate('buyers[1].pricing.price')).to.deep.equal({ line: 12, column: 5 });
    expect(document.locate('buyers[7].name')).to.deep.equal({ line: 2, column: 1 });
    expect(document.locate('')).to.deep.equal({ line: 2, column: 1 });
  });

  it('finds paths in a bare list of buyers and in a lone buyer', async () => {
    const list = await readText('buyers.yaml', '- name: a\n- name: b\n  tier: 0\n');
    expect(list.locate('[1].tier')).to.deep.equal({ line: 3, column: 3 });
    const lone = await readText('buyer.yaml', 'name: a\ncaps:\n  leadsPerDay: -1\n');
    expect(lone.locate('caps.leadsPerDay')).to.deep.equal({ line: 3, column: 3 });
    expect(lone.locate('')).to.deep.equal({ line: 1, column: 1 });
  });

  it('follows aliases', async () => {
    const document = await readText('buyers.yml', 'common: &post\n  url: http://x\nbuyers:\n  - post: *post\n');
    expect(document.value).to.deep.equal({ common: { url: 'http://x' }, buyers: [{ post: { url: 'http://x' } }] });
    expect(document.locate('buyers[0].post.url')).to.deep.equal({ line: 2, column: 3 });
  });

  it('reads JSON as JSON and still finds paths in it', async () => {
    const text = '{\n  "buyers": [\n    { "name": "lender-a", "tier": -1 }\n  ]\n}\n';
    const document = await readText('buyers.json', text);
    expect(document.value).to.deep.equal({ buyers: [{ name: 'lender-a', tier: -1 }] });
    expect(document.locate('buyers[0].tier')).to.deep.equal({ line: 3, column: 27 });
  });

  it('tries JSON, then YAML, for other extensions and for stdin', async () => {
    expect((await readText('buyers.txt', '{"buyers": []}')).value).to.deep.equal({ buyers: [] });
    expect((await readText('buyers', 'buyers: []\n')).value).to.deep.equal({ buyers: [] });
    const fromStdin = await readSourceDocument('-', Readable.from(['buyers:\n', '  - name: a\n']));
    expect(fromStdin.name).to.equal('<stdin>');
    expect(fromStdin.value).to.deep.equal({ buyers: [{ name: 'a' }] });
    expect(fromStdin.locate('buyers[0].name')).to.deep.equal({ line: 2, column: 5 });
  });

  it('reports a YAML syntax error with its line and column, on one line', async () => {
    expect(await failure('buyers.yaml', 'buyers:\n  - name: a\n    tier: 1: 2\n')).to.equal(
      'FILE:3:11: not valid YAML: Nested mappings are not allowed in compact mappings',
    );
    expect(await failure('buyers.yaml', 'buyers:\n  - name: a\n    name: b\n')).to.equal(
      'FILE:3:5: not valid YAML: Map keys must be unique',
    );
    expect(await failure('buyers.yaml', 'buyers: []\n---\nbuyers: []\n')).to.equal(
      'FILE:2:1: not valid YAML: the file holds more than one document',
    );
  });

  it('reports a YAML syntax error without quoting the file', async () => {
    const cases: [string, string][] = [
      ['a: |2 Secret-1\n  x\n', 'FILE:1:7: not valid YAML: unexpected text'],
      [
        'buyers: [a]\nSecret-1: b: Secret-2\n',
        'FILE:2:11: not valid YAML: Nested mappings are not allowed in compact mappings',
      ],
      ['auth: {bearer: b}} Secret-1\n', 'FILE:1:18: not valid YAML: unexpected text'],
      ['auth: "x\\qSecret-1"\n', 'FILE:1:9: not valid YAML: a double-quoted string holds an invalid escape sequence'],
      ['auth: *Secret-1\n', 'FILE: cannot be read: an alias names no anchor set before it'],
    ];
    for (const [text, expected] of cases) {
      const message = await failure('buyers.yaml', text);
      expect(message, text).to.equal(expected);
      expect(message).not.to.include('Secret');
    }
  });

  it('reports a JSON syntax error with its line and column, without quoting the file', async () => {
    expect(await failure('buyers.json', '{\n  "buyers": [],\n}\n')).to.equal(
      'FILE:3:1: not valid JSON: expected a property name in double quotes',
    );
    // JSON.parse's own message quoted "67", "b": Secret123}: the end of one password and another.
    expect(await failure('buyers.json', '{"buyers": [],\n "auth":{"bearer":"Pw-1234567", "b": Secret123}}')).to.equal(
      'FILE:2:38: not valid JSON: expected a value: an object, a list, a string, a number, true, false or null',
    );
    // JSON.parse keeps the last of a repeated key; a document refuses it, as YAML does.
    expect(await failure('buyers.json', '{"tier":1,"tier":900}')).to.equal(
      'FILE:1:11: not valid JSON: keys must be unique in an object',
    );
    expect(
      await failure('buyers.txt', '{"buyers": [\n  {"name": "a", "caps": {"leadsPerDay": 1, "leadsPerDay": 2}}\n]}'),
    ).to.equal('FILE:2:44: not valid JSON: keys must be unique in an object');
    // Not JSON, and not YAML either: told as YAML, the more forgiving of the two.
    expect(await failure('buyers.txt', '{ "buyers": [ }')).to.match(/^FILE:1:\d+: not valid YAML: /);
  });

  it('refuses a file that is not UTF-8 at its first byte that is not, never quoting it', async () => {
    const failed = (bytes: Buffer) =>
      withTempDir(async (dir) => {
        const file = path.join(dir, 'buyers.yaml');
        await writeFile(file, bytes);
        const refused = await readSourceDocument(file, NO_STDIN).then(
          () => expect.fail('read a file that is not UTF-8'),
          (error: FailedCommand) => error,
        );
        expect(refused).to.be.instanceOf(FailedCommand);
        return refused.output.text.split('\n')[0].replace(file, 'FILE');
      });
    // Latin-1 "café": decoding it replaced the é with U+FFFD, and the buyer was applied.
    const latin1 = Buffer.from('buyers:\n  - name: a\n    accepted: { equals: "caf\u00e9" }\n', 'latin1');
    expect(await failed(latin1)).to.equal('FILE:3:29: not valid UTF-8 at byte offset 48: save the file as UTF-8');
    // A U+FFFD written in the file is UTF-8; the byte after it is not.
    const afterReplacement = Buffer.concat([
      Buffer.from('\uFEFFa: "\uFFFD\u00e9'),
      Buffer.from([0xff]),
      Buffer.from('"\n'),
    ]);
    expect(await failed(afterReplacement)).to.equal(
      'FILE:1:7: not valid UTF-8 at byte offset 12: save the file as UTF-8',
    );
    const fromStdin = await readSourceDocument(
      '-',
      Readable.from([Buffer.from('a: "\u00e9"\n'), Buffer.from([0xc3])]),
    ).then(
      () => expect.fail('read stdin that is not UTF-8'),
      (error: FailedCommand) => error.output.text.split('\n')[0],
    );
    expect(fromStdin).to.equal('<stdin>:2:1: not valid UTF-8 at byte offset 8: save the file as UTF-8');
  });

  it('gives the value as JSON, and refuses an alias inside the node it names, which JSON cannot hold', async () => {
    expect((await readText('buyers.yaml', 'a: &a [1]\nb: *a\n')).json).to.equal('{"a":[1],"b":[1]}');
    expect(await failure('buyers.yaml', 'a: &a [1, *a]\n')).to.equal(
      'FILE: cannot be read: an alias is inside the node it names',
    );
  });

  it('refuses an empty document and a file it cannot read', async () => {
    expect(await failure('buyers.yaml', '# nothing yet\n')).to.equal('FILE: the document is empty');
    try {
      await readSourceDocument('no/such/buyers.yaml', NO_STDIN);
      expect.fail('read a missing file');
    } catch (error) {
      expect((error as Error).message).to.equal('cannot read no/such/buyers.yaml: no such file');
    }
  });
});
