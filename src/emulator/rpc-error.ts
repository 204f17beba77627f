// Errors the emulator answers with, as grpc-gateway would: an rpcStatus body whose HTTP status
// follows the gRPC code (HTTP_STATUS_FOR_GRPC), so the client's error mapping is exercised for real.
import { GRPC_CODES, HTTP_STATUS_FOR_GRPC, type RpcStatus } from '../api/schemas.ts';

export class RpcError extends Error {
  readonly code: number;
  readonly httpStatus: number;
  readonly headers: Record<string, string>;

  constructor(code: number, message: string, headers: Record<string, string> = {}) {
    super(message);
    this.name = 'RpcError';
    this.code = code;
    this.httpStatus = HTTP_STATUS_FOR_GRPC[code] ?? 500;
    this.headers = headers;
  }

  toBody(): RpcStatus {
    return { code: this.code, message: this.message, details: [] };
  }
}

export const invalidArgument = (message: string) => new RpcError(GRPC_CODES.INVALID_ARGUMENT, message);
export const notFound = (message: string) => new RpcError(GRPC_CODES.NOT_FOUND, message);
export const failedPrecondition = (message: string) => new RpcError(GRPC_CODES.FAILED_PRECONDITION, message);
export const unauthenticated = (message: string) => new RpcError(GRPC_CODES.UNAUTHENTICATED, message);

/** gRPC code a proxy/gateway failure with this HTTP status would carry. */
export function grpcCodeForHttpStatus(status: number): number {
  switch (status) {
    case 400:
      return GRPC_CODES.INVALID_ARGUMENT;
    case 401:
      return GRPC_CODES.UNAUTHENTICATED;
    case 403:
      return GRPC_CODES.PERMISSION_DENIED;
    case 404:
      return GRPC_CODES.NOT_FOUND;
    case 409:
      return GRPC_CODES.ABORTED;
    case 429:
      return GRPC_CODES.RESOURCE_EXHAUSTED;
    case 501:
      return GRPC_CODES.UNIMPLEMENTED;
    case 502:
    case 503:
      return GRPC_CODES.UNAVAILABLE;
    case 504:
      return GRPC_CODES.DEADLINE_EXCEEDED;
    case 500:
      return GRPC_CODES.INTERNAL;
    default:
      return GRPC_CODES.UNKNOWN;
  }
}
