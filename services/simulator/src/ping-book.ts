export interface RememberedBid {
  bidCents: number;
  pingRef: string;
  leadId: string | undefined;
  expiresAt: number;
}

/**
 * The bids a ping endpoint gave, findable by the ping's leadId or by the
 * pingRef of the reply, each until it expires or is posted against.
 */
export class PingBook {
  private readonly byRef = new Map<string, RememberedBid>();
  private readonly byLeadId = new Map<string, RememberedBid>();

  remember(bid: RememberedBid, now: number): void {
    this.dropExpired(now);
    this.byRef.set(bid.pingRef, bid);
    if (bid.leadId !== undefined) this.byLeadId.set(bid.leadId, bid);
  }

  /**
   * The bid a post refers to, by the first of `values` that is a bid's pingRef, else by the
   * ping's leadId; removed so that it cannot be posted against twice.
   */
  take(reference: { values: readonly string[]; leadId?: string }, now: number): RememberedBid | undefined {
    const byRef = reference.values.find((value) => this.byRef.has(value));
    const bid =
      (byRef !== undefined ? this.byRef.get(byRef) : undefined) ??
      (reference.leadId !== undefined ? this.byLeadId.get(reference.leadId) : undefined);
    if (!bid) return undefined;
    this.forget(bid);
    return bid.expiresAt > now ? bid : undefined;
  }

  // Bids of one endpoint share a time to live, so insertion order is expiry order
  // (near enough after a reconfiguration: take() checks expiry itself).
  private dropExpired(now: number): void {
    for (const bid of this.byRef.values()) {
      if (bid.expiresAt > now) return;
      this.forget(bid);
    }
  }

  private forget(bid: RememberedBid): void {
    this.byRef.delete(bid.pingRef);
    if (bid.leadId !== undefined && this.byLeadId.get(bid.leadId) === bid) this.byLeadId.delete(bid.leadId);
  }
}
