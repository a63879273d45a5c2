import type { PingReplies, PostReplies, ReplyFormat } from './config.js';

/*
 * The simulator's business replies, exactly. Every one is an HTTP 200; the
 * response parsers in integrations.ts read them.
 *
 * Post (direct_post and post endpoints)
 *   json  accepted  {"status":"accepted","price":"12.50","leadRef":"SIM-000001","redirect":"https://..."}
 *                   ("redirect" only when the endpoint has a redirectUrl)
 *         rejected  {"status":"rejected","reason":"declined"}
 *   xml   accepted  <?xml version="1.0" encoding="UTF-8"?><response><result status="accepted"/><price>12.50</price><leadRef>SIM-000001</leadRef><redirect>https://...</redirect></response>
 *                   (<redirect> only when the endpoint has a redirectUrl)
 *         rejected  <?xml version="1.0" encoding="UTF-8"?><response><result status="rejected"/><reason>declined</reason></response>
 *   text  accepted  ACCEPTED|12.50|SIM-000001|https://...   (last field empty without a redirectUrl)
 *         rejected  REJECTED|declined
 *
 * Ping
 *   json  bid       {"status":"bid","bid":"23.10","pingRef":"PING-000002"}
 *         no bid    {"status":"no_bid","bid":null,"reason":"no bid"}
 *   xml   bid       <?xml version="1.0" encoding="UTF-8"?><response><result status="bid"/><bid>23.10</bid><pingRef>PING-000002</pingRef></response>
 *         no bid    <?xml version="1.0" encoding="UTF-8"?><response><result status="no_bid"/><reason>no bid</reason></response>
 *   text  bid       BID|23.10|PING-000002
 *         no bid    NOBID|no bid
 *
 * An endpoint's own replies (`replies` in its config) take the place of these, verdict by verdict,
 * with their placeholders filled in: {price}, {leadRef}, {redirect} (empty without a redirectUrl),
 * {bid}, {pingRef}, {reason}; escaped as JSON string content, as XML text, or in text with line breaks
 * and "|" as spaces.
 *
 * Content types: application/json, application/xml, text/plain, each with charset=utf-8.
 * Amounts: dollars with two decimals, as strings. Text replies end without a newline.
 * Reasons: "declined" (lost the acceptRate draw), "duplicate" (duplicateCheck),
 * "no matching ping" (a post whose pingRef/leadId matches no live bid), "no bid".
 * A post endpoint's "price" is the bid its ping gave.
 *
 * Other answers (JSON whatever the format): 401 {"status":"error","message":"unauthorized"}
 * with WWW-Authenticate; 400, 413 or 415 {"status":"error","message":"..."} for a body
 * it cannot read; 404 for an unknown path; 405 for a method other than POST or PUT.
 * Faults (5xx, hangs, resets, HTML, truncated, garbage) are described in config.ts.
 */

export type Verdict =
  | { outcome: 'accepted'; priceCents: number; leadRef: string; redirect: string | undefined }
  | { outcome: 'rejected'; reason: string }
  | { outcome: 'bid'; bidCents: number; pingRef: string }
  | { outcome: 'no_bid'; reason: string };

export interface RenderedReply {
  contentType: string;
  body: string;
}

const CONTENT_TYPES: Record<ReplyFormat, string> = {
  json: 'application/json; charset=utf-8',
  xml: 'application/xml; charset=utf-8',
  text: 'text/plain; charset=utf-8',
};

export function dollars(cents: number): string {
  return (cents / 100).toFixed(2);
}

/** Which of an endpoint's own replies answers a verdict. */
const OWN_REPLY = { accepted: 'accepted', rejected: 'rejected', bid: 'bid', no_bid: 'noBid' } as const;

/** The placeholders each of an endpoint's own replies may hold. */
export const REPLY_PLACEHOLDERS: Record<(typeof OWN_REPLY)[Verdict['outcome']], readonly string[]> = {
  accepted: ['price', 'leadRef', 'redirect'],
  rejected: ['reason'],
  bid: ['bid', 'pingRef'],
  noBid: ['reason'],
};

function placeholderValues(verdict: Verdict): Record<string, string> {
  switch (verdict.outcome) {
    case 'accepted':
      return { price: dollars(verdict.priceCents), leadRef: verdict.leadRef, redirect: verdict.redirect ?? '' };
    case 'bid':
      return { bid: dollars(verdict.bidCents), pingRef: verdict.pingRef };
    case 'rejected':
    case 'no_bid':
      return { reason: verdict.reason };
  }
}

const textField = (text: string) => text.replace(/[|\r\n]/g, ' ');

const ESCAPES: Record<ReplyFormat, (text: string) => string> = {
  json: (text) => JSON.stringify(text).slice(1, -1),
  xml: escapeXml,
  text: textField,
};

export function renderReply(
  verdict: Verdict,
  format: ReplyFormat,
  ownReplies: PingReplies & PostReplies = {},
): RenderedReply {
  const own = ownReplies[OWN_REPLY[verdict.outcome]];
  const body = own === undefined ? standardReply(verdict, format) : filledIn(own, verdict, ESCAPES[format]);
  return { contentType: CONTENT_TYPES[format], body };
}

function standardReply(verdict: Verdict, format: ReplyFormat): string {
  if (format === 'json') return asJson(verdict);
  return format === 'xml' ? asXml(verdict) : asText(verdict);
}

function filledIn(template: string, verdict: Verdict, escaped: (text: string) => string): string {
  const values = placeholderValues(verdict);
  return template.replace(/\{(\w+)\}/g, (placeholder, name: string) =>
    Object.hasOwn(values, name) ? escaped(values[name]!) : placeholder,
  );
}

function asJson(verdict: Verdict): string {
  switch (verdict.outcome) {
    case 'accepted':
      return JSON.stringify({
        status: 'accepted',
        price: dollars(verdict.priceCents),
        leadRef: verdict.leadRef,
        ...(verdict.redirect !== undefined && { redirect: verdict.redirect }),
      });
    case 'rejected':
      return JSON.stringify({ status: 'rejected', reason: verdict.reason });
    case 'bid':
      return JSON.stringify({ status: 'bid', bid: dollars(verdict.bidCents), pingRef: verdict.pingRef });
    case 'no_bid':
      return JSON.stringify({ status: 'no_bid', bid: null, reason: verdict.reason });
  }
}

function escapeXml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

function asXml(verdict: Verdict): string {
  const element = (name: string, text: string) => `<${name}>${escapeXml(text)}</${name}>`;
  const parts = [`<result status="${verdict.outcome}"/>`];
  switch (verdict.outcome) {
    case 'accepted':
      parts.push(element('price', dollars(verdict.priceCents)), element('leadRef', verdict.leadRef));
      if (verdict.redirect !== undefined) parts.push(element('redirect', verdict.redirect));
      break;
    case 'bid':
      parts.push(element('bid', dollars(verdict.bidCents)), element('pingRef', verdict.pingRef));
      break;
    case 'rejected':
    case 'no_bid':
      parts.push(element('reason', verdict.reason));
      break;
  }
  return `<?xml version="1.0" encoding="UTF-8"?><response>${parts.join('')}</response>`;
}

function asText(verdict: Verdict): string {
  switch (verdict.outcome) {
    case 'accepted':
      return [
        'ACCEPTED',
        dollars(verdict.priceCents),
        textField(verdict.leadRef),
        textField(verdict.redirect ?? ''),
      ].join('|');
    case 'rejected':
      return `REJECTED|${textField(verdict.reason)}`;
    case 'bid':
      return `BID|${dollars(verdict.bidCents)}|${textField(verdict.pingRef)}`;
    case 'no_bid':
      return `NOBID|${textField(verdict.reason)}`;
  }
}
