/** Distinct buyer names labelled before further ones are labelled `other`: a guard on series count. */
export const MAX_BUYER_NAME_LABELS = 500;
/** What a buyer the process knows no name for is labelled. */
export const UNKNOWN_BUYER_NAME = 'unknown';
const OVERFLOW_BUYER_NAME = 'other';

/**
 * The `buyer_name` label of a buyer id: the name operators gave it (so dashboards read "acme-lending",
 * not "buy_01J..."), kept to the buyer file's own name alphabet and length. Names are operator-set, so
 * the set is bounded by configuration; renames add series, so past MAX_BUYER_NAME_LABELS distinct names
 * the rest are labelled `other` until the process restarts.
 */
export class BuyerNameLabels {
  private readonly seen = new Set<string>();
  /** Each name as labelled, found once: every call of a lead labels its buyer. */
  private readonly cleaned = new Map<string, string>();

  constructor(private readonly nameOf: (buyerId: string) => string | undefined) {}

  label(buyerId: string): string {
    const name = this.nameOf(buyerId);
    if (name === undefined) return UNKNOWN_BUYER_NAME;
    const clean = this.cleaned.get(name) ?? this.clean(name);
    if (this.seen.has(clean)) return clean;
    if (this.seen.size >= MAX_BUYER_NAME_LABELS) return OVERFLOW_BUYER_NAME;
    this.seen.add(clean);
    return clean;
  }

  private clean(name: string): string {
    const clean = name.replace(/[^A-Za-z0-9._-]/g, '_').slice(0, 64);
    // Bounded as the labels are: names past the bound are cleaned at each call.
    if (this.cleaned.size < MAX_BUYER_NAME_LABELS) this.cleaned.set(name, clean);
    return clean;
  }

  /** The labels of a buyer: its id and its name. */
  of(buyerId: string): { buyer_id: string; buyer_name: string } {
    return { buyer_id: buyerId, buyer_name: this.label(buyerId) };
  }
}
