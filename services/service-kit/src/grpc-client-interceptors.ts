import { InterceptingCall, type Interceptor } from '@grpc/grpc-js';

/** Gives each call that has none a deadline, by its method's path (`/package.Service/Method`). */
export function deadlineInterceptor(deadlineMsOf: (path: string) => number): Interceptor {
  return (options, nextCall) =>
    new InterceptingCall(
      nextCall(
        options.deadline === undefined
          ? { ...options, deadline: Date.now() + deadlineMsOf(options.method_definition.path) }
          : options,
      ),
    );
}

/** Presents `authorization: Bearer <token>` with every call. */
export function bearerTokenInterceptor(token: string): Interceptor {
  return (options, nextCall) =>
    new InterceptingCall(nextCall(options), {
      start(metadata, listener, next) {
        metadata.set('authorization', `Bearer ${token}`);
        next(metadata, listener);
      },
    });
}
