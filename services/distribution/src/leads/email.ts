const LOCAL_PART = /^[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+(?:\.[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+)*$/;
const DOMAIN_LABEL = /^[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?$/;
const TOP_LEVEL_DOMAIN = /^(?:[A-Za-z]{2,63}|xn--[A-Za-z0-9-]{1,59})$/;
const MAX_ADDRESS_LENGTH = 254;
const MAX_LOCAL_PART_LENGTH = 64;

/**
 * The address with its domain in lower case (the local part is case-sensitive by RFC 5321), or undefined
 * unless it has the shape local@domain.tld: a dot-atom local part, host-name labels, and an alphabetic
 * or punycode top-level domain. Quoted local parts and IP-literal domains are legal but no consumer uses
 * them, and they are rejected.
 */
export function normalizeEmailAddress(text: string): string | undefined {
  if (text.length > MAX_ADDRESS_LENGTH) return undefined;
  const at = text.lastIndexOf('@');
  if (at < 1) return undefined;
  const local = text.slice(0, at);
  const domain = text.slice(at + 1);
  if (local.length > MAX_LOCAL_PART_LENGTH || !LOCAL_PART.test(local)) return undefined;
  const labels = domain.split('.');
  const topLevel = labels[labels.length - 1];
  if (labels.length < 2 || !labels.every((label) => DOMAIN_LABEL.test(label)) || !TOP_LEVEL_DOMAIN.test(topLevel)) {
    return undefined;
  }
  return `${local}@${domain.toLowerCase()}`;
}
