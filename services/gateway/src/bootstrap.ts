/** Composition root of the gateway: HTTP (Nest + Express) plus a health-only gRPC port. */
import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { Server, ServerCredentials } from '@grpc/grpc-js';
import { HealthImplementation } from 'grpc-health-check';
import express, { type NextFunction, type Request, type Response } from 'express';
import type { AddressInfo } from 'node:net';
import { addReflection, PinoNestLogger, serviceAuthFromConfig, ServiceKit } from '@af/service-kit';
import { gatewayEnvSchema } from './config.js';
import { corsOptions } from './http/cors.js';
import { TokenService } from './domain/credentials.js';
import { createClients } from './infra/clients.js';
import { ApiKeysRepository } from './infra/api-keys.repository.js';
import { labelClients } from './infra/labelled-clients.js';
import { checkJsonBody, checkUrl, type JsonGuardProblem } from './domain/json-guard.js';
import { Init1763800000000 } from './infra/migrations/1763800000000-init.js';
import { ApiKeys1764300000000 } from './infra/migrations/1764300000000-api-keys.js';
import { Accounts1764500000000 } from './infra/migrations/1764500000000-accounts.js';
import { TeamInvites1765400000000 } from './infra/migrations/1765400000000-team-invites.js';
import { InvitesRepository } from './infra/invites.repository.js';
import { StreamTokens } from './domain/stream-token.js';
import { createAccounts } from './app/accounts.js';
import { TeamsRepository } from './infra/teams.repository.js';
import { UsersRepository } from './infra/users.repository.js';
import { GatewayModule } from './http/gateway.module.js';
import { HttpErrorFilter } from './http/http-error.filter.js';
import { consoleStatic, DEFAULT_CONSOLE_DIR } from './http/console-static.js';

export async function bootstrapGateway(env: NodeJS.ProcessEnv = process.env) {
  const kit = await ServiceKit.start({ name: 'gateway', envSchema: gatewayEnvSchema, env, migrations: [Init1763800000000, ApiKeys1764300000000, Accounts1764500000000, TeamInvites1765400000000] });
  const { config, log } = kit;
  const serviceAuth = serviceAuthFromConfig(config, 'gateway', { refuseSystemPrincipals: true });
  const users = new UsersRepository(kit);
  const tokens = new TokenService(config.JWT_SECRET, config.JWT_TTL_SECONDS);
  const deps = {
    kit,
    serviceAuth,
    clients: labelClients(createClients(config, serviceAuth)),
    users,
    teams: new TeamsRepository(kit),
    tokens,
    streamTokens: new StreamTokens(config.JWT_SECRET, config.STREAM_TOKEN_TTL_SECONDS),
    invites: new InvitesRepository(kit, config.INVITE_TTL_HOURS * 3600 * 1000),
    apiKeys: new ApiKeysRepository(kit),
    accounts: createAccounts(kit, users, tokens),
  };

  const app = await NestFactory.create<NestExpressApplication>(GatewayModule.forRoot(deps), {
    bodyParser: false,
    logger: new PinoNestLogger(log),
  });
  // No `X-Powered-By: Express` on any response: it tells a caller nothing it needs and an attacker which stack to try.
  app.disable('x-powered-by');
  // Client address for login throttling: X-Forwarded-For only from TRUST_PROXY's proxies.
  app.set('trust proxy', config.TRUST_PROXY);
  // Browser apps on CORS_ORIGINS may call the API (Nest's cors middleware, before everything else); none by default.
  const cors = corsOptions(config.CORS_ORIGINS);
  if (cors) app.enableCors(cors);
  // NUL characters in the URL are refused before routing (PostgreSQL cannot store them).
  app.use((req: Request, res: Response, next: NextFunction) => {
    const problem = checkUrl(req.originalUrl);
    if (!problem) return next();
    res.status(400).json({ error: { code: 'INVALID_ARGUMENT', message: `${problem.field}: ${problem.reason}`, violations: [problem] } });
  });
  // The raw body is checked (one linear pass, no recursion) before JSON.parse or anything recursive sees it.
  const verify = (_req: unknown, _res: unknown, buf: Buffer) => {
    const problem = checkJsonBody(buf, config.JSON_MAX_DEPTH);
    if (problem) throw Object.assign(new Error(`${problem.field}: ${problem.reason}`), { type: 'json.guard', guard: problem });
  };
  const tooLarge = (res: Response, length: number | undefined) => {
    const limit = `the limit is ${config.BODY_LIMIT_BYTES} bytes (BODY_LIMIT_BYTES)`;
    const reason = length === undefined ? `is larger than allowed; ${limit}` : `is ${length} bytes; ${limit}`;
    res.status(413).json({ error: { code: 'PAYLOAD_TOO_LARGE', message: `request body: ${reason}`, violations: [{ field: '(body)', reason, code: 'payload_too_large' }] } });
  };
  // A declared length over the limit is refused before a byte of the body is read; the connection is closed rather than drained.
  app.use((req: Request, res: Response, next: NextFunction) => {
    const declared = Number(req.headers['content-length']);
    if (!(declared > config.BODY_LIMIT_BYTES)) return next();
    res.setHeader('connection', 'close');
    tooLarge(res, declared);
  });
  app.use(express.json({ limit: config.BODY_LIMIT_BYTES, verify }));
  // Body-parser failures (bad JSON, too large, NUL / too deep) as our JSON error shape.
  app.use((err: { status?: number; type?: string; message?: string; guard?: JsonGuardProblem; length?: number }, _req: Request, res: Response, next: NextFunction) => {
    if (!err) return next();
    if (err.guard) {
      res.status(400).json({ error: { code: 'INVALID_ARGUMENT', message: `${err.guard.field}: ${err.guard.reason}`, violations: [err.guard] } });
      return;
    }
    if (err.type === 'entity.too.large') {
      // A body without a declared length that grew past the limit.
      tooLarge(res, err.length);
      return;
    }
    const status = err.status ?? 400;
    const code = err.type === 'entity.too.large' ? 'PAYLOAD_TOO_LARGE' : 'INVALID_ARGUMENT';
    res.status(status).json({ error: { code, message: `request body: ${err.message ?? 'unreadable'}`, violations: [{ field: '(body)', reason: err.message ?? 'unreadable' }] } });
  });
  // The console (single-page app) at `/`; the API stays under /api.
  app.use(consoleStatic(config.CONSOLE_DIR || DEFAULT_CONSOLE_DIR));
  app.useGlobalFilters(new HttpErrorFilter(log));
  app.enableShutdownHooks();
  await app.listen(config.HTTP_PORT, config.HTTP_HOST);
  const httpPort = (app.getHttpServer().address() as AddressInfo).port;

  // The gRPC port serves only grpc.health.v1 (the Kubernetes probes) and
  // reflection over it, so `grpcurl ... grpc.health.v1.Health/Check` works here as on every other port.
  const health = new HealthImplementation({ '': 'SERVING' });
  const grpcServer = new Server();
  health.addToServer(grpcServer);
  addReflection(grpcServer, {}, []);
  const grpcPort = await new Promise<number>((resolve, reject) =>
    grpcServer.bindAsync(`${config.GRPC_HOST}:${config.GRPC_PORT}`, ServerCredentials.createInsecure(), (err, port) =>
      err ? reject(err) : resolve(port),
    ),
  );

  kit.onClose(() => app.close());
  kit.onClose(
    () =>
      new Promise<void>((resolve) => {
        health.setStatus('', 'NOT_SERVING');
        grpcServer.tryShutdown(() => resolve());
      }),
  );
  log.info({ url: `http://${config.HTTP_HOST === '0.0.0.0' ? '127.0.0.1' : config.HTTP_HOST}:${httpPort}`, grpcPort }, 'gateway ready');
  return { kit, httpPort, close: () => kit.close() };
}
