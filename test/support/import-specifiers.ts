import { readFileSync } from 'node:fs';

/** The modules a file imports or re-exports, statically or dynamically, as written. */
export function importSpecifiers(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  const statements = /^\s*(?:(?:import|export)\b[^;]*?\bfrom\s*|import\s*)(['"])([^'"\n]+)\1/gm;
  const dynamic = /\bimport\(\s*(['"])([^'"\n]+)\1/g;
  return [...text.matchAll(statements), ...text.matchAll(dynamic)].map((match) => match[2] as string);
}
