// autocannon 9 ships no types; this declares the part of its API the bench uses.
declare module 'autocannon' {
  namespace autocannon {
    interface Request {
      method?: string;
      path?: string;
      headers?: Record<string, string>;
      body?: string | Buffer;
    }

    interface RequestSpec extends Request {
      setupRequest?: (request: Request, context: object) => Request;
      onResponse?: (status: number, body: string, context: object, headers: Record<string, string>) => void;
    }

    interface Options {
      url: string;
      connections?: number;
      duration?: number;
      /** Requests per second over all connections: an open load instead of each connection as fast as it can. */
      overallRate?: number;
      method?: string;
      headers?: Record<string, string>;
      requests?: RequestSpec[];
    }

    interface Histogram {
      average: number;
      p50: number;
      p99: number;
    }

    interface Result {
      requests: Histogram & { total: number };
      latency: Histogram;
      /** Connection errors, timeouts included. */
      errors: number;
    }
  }

  function autocannon(
    options: autocannon.Options,
    callback: (error: Error | null, result: autocannon.Result) => void,
  ): void;

  export = autocannon;
}
