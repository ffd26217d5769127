/**
 * The server side of service authentication: every gRPC handler of our
 * services runs only with a valid principal token in the
 * `af-principal-token` metadata, and sees the token's principal as
 * `request.principal`, whatever the message carried. Handlers that outside
 * parties call with their own credentials are marked @PublicRpc (they keep
 * their own checks); grpc.health.v1 and reflection are served outside Nest
 * and stay open.
 */
import { SetMetadata, type CanActivate, type ExecutionContext } from '@nestjs/common';
import type { Metadata } from '@grpc/grpc-js';
import { AppError } from '../errors.js';
import { PRINCIPAL_TOKEN_METADATA, type PrincipalVerifier } from '../auth/service-auth.js';

const PUBLIC_RPC = 'af:public-rpc';
const RPC_ISSUERS = 'af:rpc-issuers';

/**
 * Marks a handler that is called without a principal token because the caller
 * authenticates another way (`reason` says how; e.g. plugins present
 * PLUGIN_REGISTRATION_TOKEN). The message's own fields are all it gets.
 */
export const PublicRpc = (reason: string): MethodDecorator => SetMetadata(PUBLIC_RPC, reason);

/**
 * Only tokens minted by these services (their `iss`) may call the handler:
 * for calls that belong to the system's own plumbing, not to users or other
 * teams' services holding a token from the gateway.
 */
export const InternalRpc = (...issuers: string[]): MethodDecorator => SetMetadata(RPC_ISSUERS, issuers);

/** Verifies the principal token of every non-public RPC and replaces the message's principal with the token's. */
export class ServiceAuthGuard implements CanActivate {
  constructor(private readonly verifier: PrincipalVerifier) {}

  canActivate(context: ExecutionContext): boolean {
    if (context.getType() !== 'rpc') return true;
    const handler = context.getHandler();
    if (Reflect.getMetadata(PUBLIC_RPC, handler) !== undefined) return true;
    const rpc = context.switchToRpc();
    const values = (rpc.getContext() as Metadata | undefined)?.get?.(PRINCIPAL_TOKEN_METADATA) ?? [];
    if (values.length === 0) {
      throw new AppError('UNAUTHENTICATED', `missing ${PRINCIPAL_TOKEN_METADATA} metadata: every call needs a principal token signed with the service secret or issued by the gateway (POST /api/v1/auth/service-token)`);
    }
    if (values.length > 1) throw new AppError('UNAUTHENTICATED', `more than one ${PRINCIPAL_TOKEN_METADATA} value`);
    const token = values[0];
    if (typeof token !== 'string') throw new AppError('UNAUTHENTICATED', `${PRINCIPAL_TOKEN_METADATA} must be text`);
    const claims = this.verifier.verify(token);
    const issuers = Reflect.getMetadata(RPC_ISSUERS, handler) as string[] | undefined;
    if (issuers && !issuers.includes(claims.issuer)) {
      throw new AppError('PERMISSION_DENIED', `${context.getClass().name}.${handler.name} is internal: only ${issuers.join(', ')} may call it`);
    }
    const request = rpc.getData() as Record<string, unknown> | null;
    // The signed principal is the only one handlers see.
    if (request && typeof request === 'object') request.principal = { userId: claims.principal.userId, teamIds: [...claims.principal.teamIds] };
    return true;
  }
}
