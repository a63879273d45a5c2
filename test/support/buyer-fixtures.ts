import { readFileSync } from 'node:fs';
import path from 'node:path';

/** The path of test/fixtures/buyers/NAME. */
export function buyerFixturePath(name: string): string {
  return path.join(import.meta.dirname, '../fixtures/buyers', name);
}

/** The text of test/fixtures/buyers/NAME, each placeholder (a key of `values`, as SIMULATOR_URL) replaced. */
export function buyerFixture(name: string, values: Record<string, string> = {}): string {
  let text = readFileSync(buyerFixturePath(name), 'utf8');
  for (const [placeholder, value] of Object.entries(values)) {
    if (!text.includes(placeholder)) throw new Error(`test/fixtures/buyers/${name} holds no ${placeholder}`);
    text = text.replaceAll(placeholder, value);
  }
  return text;
}
