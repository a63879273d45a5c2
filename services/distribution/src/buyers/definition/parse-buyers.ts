/**
 * The buyer file of `leadflow buyer apply -f FILE`, YAML or JSON, already parsed into plain values.
 *
 * A document is `{buyers: [...]}`, a bare list of buyers, or one buyer. Names are camelCase; every key
 * not listed here is a mistake (a typo must not silently mean "not set"); a key left empty (`caps:`)
 * is the same as one left out. Dollars are written "25.00", "25" or 25 and become integer cents.
 *
 *   buyers:
 *     - name: acme-loans              # unique in the document (ignoring case); what apply matches on
 *       active: true                  # default true
 *       tier: 1                       # default 1; tiers are tried in ascending order (strict_tiers),
 *                                     # or by their best offer, or merged: LEADFLOW_ROUTING_MODE
 *       priority: 100                 # default 100; lower first among equal offers
 *       weight: 1                     # default 1; share of rotation among equals
 *       filters:                      # a rule tree; a list means all of its rules
 *         all:
 *           - {field: state, in: [CA, TX]}              # lead fields, normalized (states upper case)
 *           - {field: loanAmount, range: {min: 500, max: "2500.00"}}   # amounts in dollars
 *           - {field: age, range: {min: 21}}
 *           - not: {field: email, pattern: "@example\\.com$"}          # RE2 syntax; text compares ignore case
 *           - {field: bankAba, exists: true}
 *           - any: [{field: hourOfDay, range: {min: 8, max: 19}}, {field: testMode, equals: true}]
 *         # derived values: age, loanAmount, incomeNetMonthly, price (dollars), daysUntilNextPayDate,
 *         # hourOfDay (0-23) and dayOfWeek (mon..sun) in the schedule's zone (UTC without one),
 *         # testMode, publisherId. A missing value matches nothing but {exists: false}.
 *       schedule:
 *         timezone: America/Chicago   # IANA zone
 *         days: [mon, tue, wed, thu, fri]   # default every day
 *         hours: {from: "08:00", to: "20:00"}   # to before from wraps past midnight; default all day
 *       caps: {leadsPerHour: 20, leadsPerDay: 200, leadsPerMonth: 4000, spendPerDay: "5000.00"}
 *       duplicates: {lookbackDays: 30, match: [ssn, email, phone], includeRejected: false}
 *       pricing: {type: fixed, price: "25.00"}
 *       # or {type: rules, default: "20.00", rules: [{when: {field: state, equals: CA}, price: "30.00"}]}
 *       #    (first matching rule wins), or {type: bid} (the ping's bid, or the price a post answer names)
 *       payout:                       # default: each publisher's own share (publisher create --payout-share)
 *         revenueShare: 0.8           # or fixed: "15.00"
 *         publishers: {pub_01JD4T9Q2M8V5X6Y7Z8A9B0C1D: {fixed: "18.00"}}
 *       integration:
 *         mode: ping_post             # default ping_post when a ping is given, else direct_post
 *         timeoutMs: 3000             # default 3000, at most 60000, per call
 *         pingTimeoutMs: 300          # optional: the ping's own timeout (ping_post only)
 *         postTimeoutMs: 5000         # optional: the post's own timeout (short of time, posts are
 *                                     # ordered by learned accept rate and latency within it)
 *         local: false                # true allows http:// (a buyer on a private network)
 *         testBehaviour: accept       # accept | reject | test_url (test-mode leads go to testUrl)
 *         onTimeout: unconfirmed      # unconfirmed (default: an unanswered post holds the lead for this
 *                                     # buyer) | decline (its contract counts it as a no: the lead moves on)
 *         statusLookup:               # optional: asks whether the buyer holds a lead whose post went
 *           url: https://api.acme.example/status   # unanswered; an exchange like post, ids only
 *           mapping: {ref: attemptId, lead: leadId}
 *           response: {accepted: {path: $.status, equals: held}}   # matching: the buyer holds it
 *         ping:                       # no personal data: names, contacts, SSN, DOB, bank, IP refused
 *           url: https://api.acme.example/ping
 *           mapping: {state: state, amount: {field: loanAmount, transform: {money: number}}}
 *           response: {accepted: {path: $.status, equals: ok}, price: $.bid, reference: $.pingId}
 *         post:
 *           url: https://api.acme.example/post
 *           testUrl: https://sandbox.acme.example/post
 *           method: POST              # POST | PUT | GET (the mapping as the query string, no body), default POST
 *           format: json              # json | form | xml | soap (SOAP 1.1 envelope), default json; GET: query
 *           headers: {X-Api-Version: "2"}
 *           auth: {bearer: "${secret:acme.token}"}   # or {basic: {username, password}}
 *           mapping:                  # output key (dotted for nested JSON) -> source
 *             pingId: pingReference   # the ping answer's reference (ping_post only)
 *             requestId: attemptId    # this post's own id, the same on every try: the buyer may dedupe on it
 *             applicant.ssn: ssn      # a field name
 *             applicant.dob: {field: dob, transform: [{date: MM/DD/YYYY}]}
 *             applicant.phone: {field: cellPhone, transform: {phone: "(XXX) XXX-XXXX"}}
 *             source: {value: leadflow}         # a constant
 *           response:
 *             format: json            # json ($.a.b) | xml (XPath subset, see README) | text (RE2 regex, one group)
 *             accepted: {path: $.result, in: [accepted, sold]}   # or equals, or matches (RE2 regex)
 *             reason: $.message
 *             reference: {path: $.id}
 *             redirectUrl: $.redirect
 *             # price: $.price, priceChange: accept_lower   (ping_post: accept_lower | use_bid | reject)
 *
 * XML and SOAP (format xml | soap): mapping keys are element paths under one root ("Lead/Applicant/SSN",
 * "Lead/@version" for an attribute), or `template: '<Lead><Ssn>{{ssn}}</Ssn></Lead>'` (for soap, the Body's
 * content) whose {{placeholders}} are the mapping's keys, only in element text or attribute values; values
 * are escaped. `soapAction: "urn:x#Submit"` sets the SOAPAction header. A GET's mapping may not send a personal
 * field (SENSITIVE_LEAD_FIELDS): URLs end up in access logs.
 *
 * url, testUrl, header values, auth and text constants ({value}) may hold ${env:NAME} (the distribution
 * service's environment) and ${secret:key.path} (the file LEADFLOW_BUYER_SECRETS_FILE names); $${ is a
 * literal ${. Each must resolve when the file is applied; the references are stored, resolved per request.
 *
 * Transforms: digits, upper, lower, trim, {date: "MM/DD/YYYY"} (dates), {phone: "XXX-XXX-XXXX"} (phones),
 * {money: number|string} (amounts), {map: {from: to}, default}. Bid pricing needs a ping (whose
 * response locates the price) or a direct post whose response locates it. URLs are https:// unless the
 * buyer is local; credentials go in auth, never in the URL.
 */
import type { BuyerDefinition } from './buyer-definition.js';
import { type BuyerValues, serviceValues } from './buyer-values.js';
import { parseBuyer } from './parse-buyer.js';
import { indexPath, keyPath, type Problem, Problems } from './problems.js';
import { isPlainObject, readList, readObject } from './read-values.js';

export type BuyerDocumentResult = { buyers: BuyerDefinition[] } | { errors: Problem[] };

const DOCUMENT_SHAPE = '{buyers: [...]}, a list of buyers or one buyer';

/** The buyers of the document with the path each sits at ("buyers[0]", "[0]", or "" for a lone buyer). */
function listedBuyers(document: unknown, problems: Problems): { value: unknown; path: string }[] {
  const listAt = (value: unknown, path: string) =>
    (readList(value, path, problems) ?? []).map((item, index) => ({ value: item, path: indexPath(path, index) }));
  if (Array.isArray(document)) return listAt(document, '');
  if (!isPlainObject(document)) {
    problems.at('', `must be ${DOCUMENT_SHAPE}`);
    return [];
  }
  if (!Object.hasOwn(document, 'buyers')) return [{ value: document, path: '' }];
  const fields = readObject(document, '', ['buyers'], problems);
  return listAt(fields?.buyers, 'buyers');
}

/** apply matches on names, and MySQL compares them ignoring case. */
function checkUniqueNames(listed: { value: unknown; path: string }[], problems: Problems): void {
  const firstPathOf = new Map<string, string>();
  for (const { value, path } of listed) {
    if (!isPlainObject(value) || typeof value.name !== 'string') continue;
    const key = value.name.toLowerCase();
    const first = firstPathOf.get(key);
    if (first === undefined) firstPathOf.set(key, path);
    else problems.at(keyPath(path, 'name'), `repeats the name of ${first} (names ignore case)`);
  }
}

/**
 * Every buyer of an apply document, or every mistake in it, each with its path
 * (`buyers[0].integration.post.mapping["applicant.ssn"].transform[1]`; "" is the document itself).
 * Every ${env:...} and ${secret:...} must resolve in `values` (the service's own, by default).
 * Messages never repeat a value of the document. Never throws.
 */
export function parseBuyerDocument(document: unknown, values: BuyerValues = serviceValues()): BuyerDocumentResult {
  const problems = new Problems();
  const listed = listedBuyers(document, problems);
  const buyers = listed.map(({ value, path }) => parseBuyer(value, path, values, problems));
  checkUniqueNames(listed, problems);
  if (problems.found.length > 0) return { errors: problems.found };
  return { buyers: buyers.filter((buyer) => buyer !== undefined) };
}
