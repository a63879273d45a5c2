/**
 * The largest request message the gRPC server takes, for every method: a lead is a few KiB, a buyers
 * document a few hundred bytes per buyer. Larger ones are refused (RESOURCE_EXHAUSTED) before they are
 * read into memory. The CLI checks a buyers document against it before sending.
 */
export const MAX_RECEIVED_MESSAGE_BYTES = 1024 * 1024;
