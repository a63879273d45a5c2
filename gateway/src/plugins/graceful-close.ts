import { shared } from './shared.js';

/**
 * While the gateway closes, answers tell the client to close the connection.
 * Otherwise a keep-alive connection whose request was in flight when closing
 * began stays open after its answer, and holds the close up until its idle
 * timeout.
 */
export const gracefulClose = shared('graceful-close', async (app) => {
  let closing = false;
  app.addHook('preClose', (done) => {
    closing = true;
    done();
  });
  app.addHook('onSend', (_request, reply, payload, done) => {
    if (closing) reply.header('connection', 'close');
    done(null, payload);
  });
});
