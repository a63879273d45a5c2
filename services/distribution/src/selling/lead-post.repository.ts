import { type CompiledQuery, MysqlAdapter } from 'kysely';
import type { Db } from '../db/database.js';
import { rowsInsert } from '../db/insert-rows.js';
import { ReusableQuery } from '../db/reusable-query.js';
import type {
  BuyerAttemptOutcome,
  LeadPostResolver,
  LeadPostRow,
  LeadPostState,
  LeadPostUpdate,
} from '../db/schema.js';
import { type PlannedWrite, plannedWrite } from '../db/statements-together.js';
import type { PersonHashes, StaleSale } from '../leads/stored-lead.js';
import type { LeadPost } from './lead-post.js';

/** Posts that may have put the lead in a buyer's hands: while one exists, the lead goes to no other buyer. */
export const OPEN_POST_STATES: readonly LeadPostState[] = ['pending', 'unknown', 'accepted'];
/** Answers that say the buyer did not take the lead. */
export const DECLINED_POST_STATES: readonly LeadPostState[] = ['rejected', 'failed'];

export interface NewIntent {
  id: string;
  leadId: string;
  buyerId: string;
  /** Who must still hold the lead for the post to go ahead. */
  claimToken: string;
  chargeCents: number | undefined;
  payoutCents: number | undefined;
  createdAt: number;
}

export type IntentRefusal = 'claim_lost' | 'open_post';

// The lead under its lock, and a count of its open posts read beside it (a subquery of a locking read
// locks nothing, as a separate read of the posts would not).
const claimOfLead = new ReusableQuery((db: Db, values: { leadId: string }) => {
  const claim = db
    .selectFrom('leads')
    .select((eb) => [
      'leads.status',
      'leads.claim_token',
      eb
        .selectFrom('lead_posts')
        .select(eb.fn.countAll().as('count'))
        .whereRef('lead_posts.lead_id', '=', 'leads.id')
        .where('lead_posts.state', 'in', OPEN_POST_STATES)
        .as('open_posts'),
    ])
    .where('leads.id', '=', values.leadId);
  return db.getExecutor().adapter instanceof MysqlAdapter ? claim.forUpdate() : claim;
});

type ClaimOfLead = Awaited<ReturnType<typeof claimOfLead.execute>>['rows'][number];

function refusalOf(lead: ClaimOfLead | undefined, claimToken: string): IntentRefusal | undefined {
  if (lead?.status !== 'processing' || lead.claim_token !== claimToken) return 'claim_lost';
  if (Number(lead.open_posts) > 0) return 'open_post';
  return undefined;
}

/**
 * The intent to post a lead to a buyer, as a write that stores it or says why it may not: the lead is no
 * longer held under this claim (another process took it over), or another post of it may have reached a
 * buyer. A lead posted to this buyer before fails the insert on the unique key of lead and buyer
 * (isDuplicateKeyError). The claim is read under the lead row's lock, so a takeover either sees this
 * intent or makes it fail.
 *
 * The claim's read and the intent's insert go together: the insert is taken back, in the same
 * transaction, when the read refuses it.
 */
export function intentWrite(db: Db, intent: NewIntent): PlannedWrite<IntentRefusal | undefined> {
  return plannedWrite(
    [
      claimOfLead.compile(db, { leadId: intent.leadId }),
      rowsInsert(db, 'lead_posts', [
        {
          id: intent.id,
          lead_id: intent.leadId,
          buyer_id: intent.buyerId,
          state: 'pending',
          charge_cents: intent.chargeCents ?? null,
          payout_cents: intent.payoutCents ?? null,
          redirect_url: null,
          reference: null,
          created_at: intent.createdAt,
          answered_at: null,
          resolved_by: null,
        },
      ]),
    ],
    async ([claim], trx) => {
      const refusal = refusalOf(claim.rows[0], intent.claimToken);
      if (refusal) await trx.deleteFrom('lead_posts').where('id', '=', intent.id).execute();
      return refusal;
    },
  );
}

export interface PostAnswer {
  state: Exclude<LeadPostState, 'pending'>;
  chargeCents?: number;
  payoutCents?: number;
  redirectUrl?: string;
  reference?: string;
  resolvedBy?: LeadPostResolver;
}

const answerOfPost = (states: LeadPostState[]) =>
  new ReusableQuery((db: Db, values: { postId: string; row: LeadPostUpdate }) =>
    db.updateTable('lead_posts').set(values.row).where('id', '=', values.postId).where('state', 'in', states),
  );
const ANSWER_OF = { pending: answerOfPost(['pending']), unsettled: answerOfPost(['pending', 'unknown']) };

/**
 * Which posts an answer may settle: `pending` ones, or `unsettled` ones, which adds a post left
 * `unknown` when its lead became unconfirmed (an acceptance that arrives late, a resolution).
 */
export type AnswerableStates = keyof typeof ANSWER_OF;

/** Records a post's answer; false when the post was not in `settles` (it already had an answer). */
export async function recordAnswer(
  db: Db,
  postId: string,
  answer: PostAnswer,
  now: number,
  settles: AnswerableStates = 'unsettled',
): Promise<boolean> {
  const result = await db.executeQuery(answerUpdate(db, postId, answer, now, settles));
  return (result.numAffectedRows ?? 0n) > 0n;
}

/** `recordAnswer`'s statement, to run with others; no row is affected when the post was not in `settles`. */
export function answerUpdate(
  db: Db,
  postId: string,
  answer: PostAnswer,
  now: number,
  settles: AnswerableStates = 'unsettled',
): CompiledQuery {
  return ANSWER_OF[settles].compile(db, {
    postId,
    row: {
      state: answer.state,
      charge_cents: answer.chargeCents,
      payout_cents: answer.payoutCents,
      redirect_url: answer.redirectUrl?.slice(0, 2048) ?? null,
      reference: answer.reference?.slice(0, 200) ?? null,
      answered_at: now,
      resolved_by: answer.resolvedBy ?? null,
    },
  });
}

function postOfRow(row: LeadPostRow): LeadPost {
  return {
    id: row.id,
    leadId: row.lead_id,
    buyerId: row.buyer_id,
    state: row.state,
    chargeCents: row.charge_cents,
    payoutCents: row.payout_cents,
    redirectUrl: row.redirect_url,
    reference: row.reference,
    createdAt: row.created_at,
    answeredAt: row.answered_at,
    resolvedBy: row.resolved_by,
  };
}

export async function listLeadPosts(db: Db, leadId: string): Promise<LeadPost[]> {
  const rows = await db
    .selectFrom('lead_posts')
    .selectAll()
    .where('lead_id', '=', leadId)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
  return rows.map(postOfRow);
}

/** A post of a live lead, with how its attempt ended. */
export interface LivePost {
  leadId: string;
  startedAt: number;
  durationMs: number;
  outcome: BuyerAttemptOutcome;
  /** The lead's US state. */
  leadState: string;
  /** What the lead was offered to the buyer at. */
  chargeCents: number | null;
}

/**
 * The buyer's `limit` most recent posts of live leads, newest first (by the post intents' buyer index),
 * each with its attempt's outcome and duration.
 */
export async function listRecentLivePosts(db: Db, buyerId: string, limit: number): Promise<LivePost[]> {
  const rows = await db
    .selectFrom('lead_posts as p')
    .innerJoin('leads as l', 'l.id', 'p.lead_id')
    .innerJoin('buyer_attempts as a', (join) =>
      join.onRef('a.lead_id', '=', 'p.lead_id').onRef('a.buyer_id', '=', 'p.buyer_id').on('a.kind', '=', 'post'),
    )
    .select(['p.lead_id', 'p.charge_cents', 'a.started_at', 'a.duration_ms', 'a.outcome', 'l.state'])
    .where('p.buyer_id', '=', buyerId)
    .where('l.is_test', '=', 0)
    .orderBy('p.created_at', 'desc')
    .limit(limit)
    .execute();
  return rows.map((row) => ({
    leadId: row.lead_id,
    startedAt: Number(row.started_at),
    durationMs: Number(row.duration_ms),
    outcome: row.outcome,
    leadState: row.state,
    chargeCents: row.charge_cents === null ? null : Number(row.charge_cents),
  }));
}

/**
 * A post of a lead, with when the lead came and the hashes of its person. Flat, not a person nested in
 * it: the duplicate check reads these for every lead, at one object a post.
 */
export interface PersonPost extends PersonHashes {
  buyerId: string;
  state: LeadPostState;
  leadCreatedAt: number;
}

/**
 * The posts in `states` to `buyerIds` of live leads but `leadId`, created from `createdSince` on, that
 * share the hash of an SSN, e-mail or phone with the person.
 */
export async function listPostsOfPerson(
  db: Db,
  person: PersonHashes,
  leadId: string,
  createdSince: number,
  states: readonly LeadPostState[],
  buyerIds: readonly string[],
): Promise<PersonPost[]> {
  const rows = await db
    .selectFrom('leads')
    .innerJoin('lead_posts', 'lead_posts.lead_id', 'leads.id')
    .select([
      'lead_posts.buyer_id',
      'lead_posts.state',
      'leads.created_at',
      'leads.ssn_hash',
      'leads.email_hash',
      'leads.phone_hash',
    ])
    .where((eb) =>
      eb.or([
        eb('leads.ssn_hash', '=', person.ssn),
        eb('leads.email_hash', '=', person.email),
        eb('leads.phone_hash', '=', person.phone),
      ]),
    )
    .where('leads.id', '<>', leadId)
    .where('leads.is_test', '=', 0)
    .where('leads.created_at', '>=', createdSince)
    .where('lead_posts.state', 'in', states)
    .where('lead_posts.buyer_id', 'in', buyerIds)
    .execute();
  return rows.map((row) => ({
    buyerId: row.buyer_id,
    state: row.state,
    leadCreatedAt: row.created_at,
    ssn: row.ssn_hash,
    email: row.email_hash,
    phone: row.phone_hash,
  }));
}

/**
 * Up to `limit` leads still being sold under a claim taken before `claimedBefore` (a seller that stopped,
 * or a claim given back) that have a post which may be at a buyer, or that arrived before
 * `arrivedBefore` (no retry came back for them in the retry window); the oldest claim first.
 */
export async function listStaleSales(
  db: Db,
  stale: { claimedBefore: number; arrivedBefore: number },
  limit: number,
): Promise<StaleSale[]> {
  const rows = await db
    .selectFrom('leads')
    .select(['id', 'publisher_id', 'clickid', 'is_test', 'claim_token', 'created_at'])
    .where('status', '=', 'processing')
    .where('claimed_at', '<', stale.claimedBefore)
    .where((eb) =>
      eb.or([
        eb.exists(
          eb
            .selectFrom('lead_posts')
            .select('lead_posts.id')
            .whereRef('lead_posts.lead_id', '=', 'leads.id')
            .where('lead_posts.state', 'in', OPEN_POST_STATES),
        ),
        eb('created_at', '<', stale.arrivedBefore),
      ]),
    )
    .orderBy('claimed_at')
    .limit(limit)
    .execute();
  return rows.map((row) => ({
    id: row.id,
    publisherId: row.publisher_id,
    clickid: row.clickid,
    test: row.is_test === 1,
    claimToken: row.claim_token,
    createdAt: Number(row.created_at),
  }));
}
