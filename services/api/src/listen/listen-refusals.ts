import type { Duplex } from 'node:stream';
import { RpcError, RpcTimeoutError } from '@feedback/messaging';
import { ApiError, ERROR_STATUS } from '../http/api-error.js';

/** The answer of an upgrade refused, in the API's error body. */
export function refuse(socket: Duplex, error: ApiError): void {
  const body = JSON.stringify({ error: error.code, message: error.message, ...error.details });
  const headers = [
    `HTTP/1.1 ${error.status} ${error.code}`,
    'Content-Type: application/json; charset=utf-8',
    `Content-Length: ${Buffer.byteLength(body)}`,
    'Cache-Control: no-store',
    'Connection: close',
    ...Object.entries(error.headers).map(([name, value]) => `${name}: ${value}`),
  ];
  socket.end(`${headers.join('\r\n')}\r\n\r\n${body}`);
}

/** An RPC failure as the error the dashboard would answer. */
export function asApiError(error: unknown): ApiError {
  if (error instanceof ApiError) return error;
  if (error instanceof RpcError && error.code === 'session_invalid') return new ApiError('invalid_session', error.message, {}, { 'WWW-Authenticate': 'Bearer realm="dashboard"' });
  if (error instanceof RpcError && error.code in ERROR_STATUS) return new ApiError(error.code as keyof typeof ERROR_STATUS, error.message);
  if (error instanceof RpcTimeoutError) return new ApiError('service_unavailable', 'A service we depend on did not answer in time. Retry shortly.', {}, { 'Retry-After': '1' });
  return new ApiError('internal_error', 'Something went wrong on our side. Retry later.');
}
