// Control characters (C0, DEL, C1) and unpaired UTF-16 surrogates: no real name, address or tracking value
// holds them, and they corrupt logs, CSV exports and utf8mb4 columns.
const DISALLOWED_CHARACTERS = /[\p{Cc}\p{Cs}]/u;

export const DISALLOWED_CHARACTERS_MESSAGE = 'must not contain control characters';

export function hasDisallowedCharacters(text: string): boolean {
  return DISALLOWED_CHARACTERS.test(text);
}
