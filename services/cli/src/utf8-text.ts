import { isUtf8 } from 'node:buffer';

/** The text of UTF-8 bytes; or where their first byte that is not UTF-8 is, with the text decoded before it. */
export type Utf8Text = { text: string } | { invalidByte: number; textBefore: string };

const REPLACEMENT_BYTES = Buffer.from('\uFFFD');

/**
 * Decodes strictly: Buffer's decoder replaces what is not UTF-8 with U+FFFD, so that a Latin-1 "café"
 * would silently become "caf\uFFFD". The replaced byte is the first U+FFFD the bytes do not spell.
 */
export function decodeUtf8(bytes: Buffer): Utf8Text {
  const text = bytes.toString('utf8');
  if (isUtf8(bytes)) return { text };
  let byte = 0;
  let index = 0;
  for (const char of text) {
    if (char === '\uFFFD' && !bytes.subarray(byte, byte + REPLACEMENT_BYTES.length).equals(REPLACEMENT_BYTES)) break;
    byte += Buffer.byteLength(char);
    index += char.length;
  }
  return { invalidByte: byte, textBefore: text.slice(0, index) };
}
