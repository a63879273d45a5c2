import fp from 'fastify-plugin';

/**
 * For a gateway that trusts no proxy (LEADFLOW_TRUST_PROXY unset): the first request carrying
 * X-Forwarded-For is logged once, since behind a proxy every client would share the proxy's address, and
 * so one allowance of failed authentications.
 */
export const forwardedForWarning = fp(
  async (app) => {
    let warned = false;
    app.addHook('onRequest', (request, _reply, done) => {
      if (!warned && request.headers['x-forwarded-for'] !== undefined) {
        warned = true;
        app.log.warn(
          'a request arrived with X-Forwarded-For but LEADFLOW_TRUST_PROXY is unset: clients are told apart by the ' +
            "connection's address, so behind a proxy they all share its limit of failed authentications; " +
            "set LEADFLOW_TRUST_PROXY to the proxy's addresses",
        );
      }
      done();
    });
  },
  { name: 'forwarded-for-warning' },
);
