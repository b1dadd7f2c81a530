/** An expected failure of an RPC method, with a stable code the caller can branch on. */
export class RpcError extends Error {
  override readonly name = 'RpcError';
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

/** No reply within the time limit: the answering service is down, slow, or unreachable. */
export class RpcTimeoutError extends Error {
  override readonly name: string = 'RpcTimeoutError';
  readonly code = 'rpc_timeout';
  constructor(method: string, timeoutMs: number) {
    super(`${method} did not answer within ${timeoutMs} ms`);
  }
}

/**
 * No queue took the request: the answering service has not declared its queue on this broker
 * (it has not started yet, or is not deployed). Known at once, from the broker's return, rather
 * than at the call's time limit; a kind of timeout to callers, who answer both alike.
 */
export class RpcNoServiceError extends RpcTimeoutError {
  override readonly name = 'RpcNoServiceError';
  constructor(method: string, queue: string) {
    super(method, 0);
    this.message = `${method}: no service takes its requests yet (the queue ${queue} does not exist)`;
  }
}

/**
 * The client closed (its process is stopping) before the answer came: the call ends now rather
 * than never. A kind of timeout to callers, who answer both alike.
 */
export class RpcClientClosedError extends RpcTimeoutError {
  override readonly name = 'RpcClientClosedError';
  constructor(method: string) {
    super(method, 0);
    this.message = `${method}: no answer before this caller closed its RPC client`;
  }
}
