import { readFileSync } from 'node:fs';
import path from 'node:path';
import { REPOSITORY_ROOT } from './workspaces.js';

/**
 * The code block a page marks `<!-- docs-test: NAME -->` (the line before its fence), exactly as
 * written, so that a test runs what readers copy. Fails when the page marks none or several.
 */
export function markedBlock(page: string, name: string): string {
  const text = readFileSync(path.join(REPOSITORY_ROOT, page), 'utf8');
  const escaped = name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const found = [
    ...text.matchAll(new RegExp(`^<!-- docs-test: ${escaped} -->\\n\`\`\`[a-z]*\\n([\\s\\S]*?)^\`\`\`$`, 'gm')),
  ];
  if (found.length !== 1) throw new Error(`${page} marks ${found.length} code blocks "docs-test: ${name}", not one`);
  return found[0]![1]!;
}
