// Control characters (C0, DEL, C1) and unpaired UTF-16 surrogates: no real name, address or tracking value
// holds them, and they corrupt logs, CSV exports and utf8mb4 columns.
const CONTROL_CHARACTERS = /[\p{Cc}\p{Cs}]/u;

// Invisible format characters (direction embeddings, overrides, isolates and marks, zero-width spaces and
// joiners, the byte order mark, soft hyphens, tags) and the line and paragraph separators: they change
// what `lead show`, a log or a spreadsheet displays ("Smith" shown backwards, two equal-looking names that
// differ), and no name, address or tracking value needs them.
const FORMAT_CHARACTERS = /[\p{Cf}\p{Zl}\p{Zp}]/u;

export const CONTROL_CHARACTERS_MESSAGE = 'must not contain control characters';
export const FORMAT_CHARACTERS_MESSAGE =
  'must not contain invisible formatting characters (direction controls, zero-width characters)';

/** What is wrong with a free-text value's characters, as a field message; undefined when nothing is. */
export function disallowedCharactersProblem(text: string): string | undefined {
  if (CONTROL_CHARACTERS.test(text)) return CONTROL_CHARACTERS_MESSAGE;
  if (FORMAT_CHARACTERS.test(text)) return FORMAT_CHARACTERS_MESSAGE;
  return undefined;
}

/**
 * Whether a text has more than `max` characters, counted as JSON Schema's maxLength counts them: in code
 * points, so an emoji (two UTF-16 units) is one character.
 */
export function hasMoreCharactersThan(text: string, max: number): boolean {
  // No more UTF-16 units than the limit is no more code points either: most texts are not counted.
  if (text.length <= max) return false;
  let characters = 0;
  for (const _character of text) if (++characters > max) return true;
  return false;
}
