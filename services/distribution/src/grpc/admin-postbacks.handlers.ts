import type { AdminServiceServer } from '@leadflow/proto/leadflow/admin/v1/admin';
import {
  type ListPostbackDeliveriesRequest,
  type PostbackDelivery,
  PostbackState,
  type PublisherPostback,
  type SetPublisherPostbackRequest,
} from '@leadflow/proto/leadflow/admin/v1/postbacks';
import { timestampOfMs } from '@leadflow/service-kit/proto-time';
import type { PublisherEventState } from '../db/schema.js';
import type { StoredEvent } from '../postbacks/postback.repository.js';
import type { PostbackSettings, PublisherPostbacks } from '../postbacks/publisher-postbacks.js';
import { pageSizeOf } from './pages.js';
import type { UnaryMethods } from './unary.js';

type PostbackMethods = Pick<
  AdminServiceServer,
  'setPublisherPostback' | 'getPublisherPostback' | 'rotatePostbackSecret' | 'listPostbackDeliveries'
>;

const STATES: Record<PublisherEventState, PostbackState> = {
  pending: PostbackState.POSTBACK_STATE_PENDING,
  delivered: PostbackState.POSTBACK_STATE_DELIVERED,
  failed: PostbackState.POSTBACK_STATE_FAILED,
};

function postbackMessage(settings: PostbackSettings): { postback: PublisherPostback } {
  return { postback: { ...settings } };
}

function deliveryMessage(event: StoredEvent): PostbackDelivery {
  return {
    eventId: event.id,
    type: event.type,
    leadId: event.leadId,
    state: STATES[event.state],
    attempts: event.attempts,
    lastError: event.lastError ?? '',
    createTime: new Date(event.createdAt),
    deliverTime: timestampOfMs(event.deliveredAt),
    nextAttemptTime: event.state === 'pending' ? new Date(event.nextAttemptAt) : undefined,
  };
}

/** The admin service's postback methods: a publisher's URL, its signing secret and its deliveries. */
export function adminPostbackHandlers(postbacks: PublisherPostbacks, admin: UnaryMethods): PostbackMethods {
  return {
    setPublisherPostback: admin('SetPublisherPostback', async (request: SetPublisherPostbackRequest) =>
      postbackMessage(await postbacks.set(request.publisherId, request.url.trim(), request.local)),
    ),
    getPublisherPostback: admin('GetPublisherPostback', async (request: { publisherId: string }) =>
      postbackMessage(await postbacks.get(request.publisherId)),
    ),
    rotatePostbackSecret: admin('RotatePostbackSecret', async (request: { publisherId: string }) =>
      postbackMessage(await postbacks.rotateSecret(request.publisherId)),
    ),
    listPostbackDeliveries: admin('ListPostbackDeliveries', async (request: ListPostbackDeliveriesRequest) => ({
      deliveries: (await postbacks.deliveries(request.publisherId, pageSizeOf(request))).map(deliveryMessage),
    })),
  };
}
