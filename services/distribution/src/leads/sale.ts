/** A lead sold to a buyer, in integer cents; rows stay in lead.repository.ts. */
export interface Sale {
  id: string;
  leadId: string;
  publisherId: string;
  buyerId: string;
  chargeCents: number;
  payoutCents: number;
  marginCents: number;
  createdAt: number;
}
