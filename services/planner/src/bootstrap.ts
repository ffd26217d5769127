import 'reflect-metadata';
import { ServiceKit, startGrpcServer } from '@af/service-kit';
import { Playbooks } from './app/playbooks.js';
import { plannerEnvSchema } from './config.js';
import { PlannerModule } from './grpc/planner.controller.js';
import { Init1763800000000 } from './infra/migrations/1763800000000-init.js';

export async function bootstrapPlanner(env: NodeJS.ProcessEnv = process.env) {
  const kit = await ServiceKit.start({ name: 'planner', envSchema: plannerEnvSchema, env, migrations: [Init1763800000000] });
  const grpc = await startGrpcServer({
    module: PlannerModule.forRoot(new Playbooks(kit)),
    packages: ['planner'],
    host: kit.config.GRPC_HOST,
    port: kit.config.GRPC_PORT,
    log: kit.log,
    metrics: kit.metrics,
  });
  kit.onClose(() => grpc.close());
  kit.log.info({ grpcPort: kit.config.GRPC_PORT }, 'planner ready');
  return { kit, close: () => kit.close() };
}
