/**
 * The `af` command line: connector authoring (validate, test) and plugin
 * development (serve a plugin module against a registry).
 */
import { Command, CommanderError, InvalidArgumentError, Option } from 'commander';
import type { HttpRequestFn } from '@af/connectors';
import { validateConnector } from './commands/connector-validate.js';
import { loadHttp } from './http.js';
import { CliError, type CliIo } from './io.js';
import { devRegistrationToken } from './dev-token.js';

export interface CliDeps {
  io: CliIo;
  /** Ends `af plugin dev` (SIGINT/SIGTERM in the real CLI). */
  stop: AbortSignal;
  http?: () => Promise<HttpRequestFn>;
  /** Printed by `af --version` (the package.json version). */
  version: string;
}

const collect = (value: string, previous: string[] = []) => [...previous, value];

function positiveInt(name: string, max = Number.MAX_SAFE_INTEGER) {
  return (value: string) => {
    const n = Number(value);
    if (!/^\d+$/.test(value) || n > max)
      throw new InvalidArgumentError(`${name} must be a whole number from 0 to ${max}`);
    return n;
  };
}

/** Builds the program; `run` parses argv and returns the exit code (never calls process.exit). */
export function createCli(deps: CliDeps): { program: Command; run(argv: string[]): Promise<number> } {
  let code = 0;
  const program = new Command('af')
    .description('Agent Factory developer tools')
    .version(deps.version, '-V, --version', "print the CLI's version")
    .exitOverride()
    .configureOutput({
      writeOut: (s) => deps.io.out(s.trimEnd()),
      writeErr: (s) => deps.io.err(s.trimEnd()),
    });

  const connector = program.command('connector').description('author connector definitions (YAML, see docs/connectors.md)');
  connector
    .command('validate')
    .description('check a connector YAML file; problems are printed as file:line:column: field: reason')
    .argument('<file>', 'connector YAML')
    .action(async (file: string) => {
      code = await validateConnector(file, deps.io);
    });
  connector
    .command('test')
    .description('call one endpoint from this machine and print the records and an inferred output_schema')
    .argument('<file>', 'connector YAML')
    .argument('<endpoint>', 'endpoint name')
    .option('-p, --param <name=value>', 'an input value (repeatable)', collect, [])
    .option(
      '-c, --credential <name=value>',
      'a credential the connection needs (repeatable; prefer env-expanded values over literals)',
      collect,
      [],
    )
    .option('--timeout <ms>', 'timeout of the call', positiveInt('--timeout', 600_000))
    .option('--json', 'print one JSON document instead of the report')
    .action(
      async (
        file: string,
        endpoint: string,
        opts: { param: string[]; credential: string[]; timeout?: number; json?: boolean },
      ) => {
        const { testConnector } = await import('./commands/connector-test.js');
        code = await testConnector(
          file,
          endpoint,
          {
            params: opts.param,
            credentials: opts.credential,
            ...(opts.timeout !== undefined ? { timeoutMs: opts.timeout } : {}),
            ...(opts.json ? { json: true } : {}),
          },
          deps.io,
          deps.http ?? loadHttp,
        );
      },
    );

  const er = program.command('er').description('entity resolution (the entity-resolution service pipeline)');
  er.command('resolve')
    .description(
      'resolve PERSON / ORG records (JSONL) into clusters (JSONL); bad lines are reported and skipped',
    )
    .requiredOption('--in <file>', 'records, one JSON object a line: {record_id, entity_type, name, ...}')
    .requiredOption('--out <file>', 'clusters, one line a record: {record_id, cluster_id, decided}')
    .option('--model <file>', 'a model file `af er fit` wrote (default: the shipped model)')
    .option('--auto-threshold <p>', 'merge without review at or above this probability (at least 0.7; default 0.9)')
    .option('--review-threshold <p>', 'send to review at or above this probability, below the auto threshold (default 0.4)')
    .action(async (opts: { in: string; out: string; model?: string; autoThreshold?: string; reviewThreshold?: string }) => {
      const { erResolve } = await import('./commands/er-resolve.js');
      code = await erResolve(opts, deps.io);
    });

  er.command('fit')
    .description(
      "fit the scoring model to your records (EM; lines with entity_id labels also fit the calibration) and write a model file for the service's ER_MODEL_FILE and `af er resolve --model`",
    )
    .requiredOption('--in <file>', 'records as for `af er resolve`, optionally with entity_id (which records are one entity)')
    .requiredOption('--out <file>', 'the model file (JSON)')
    .action(async (opts: { in: string; out: string }) => {
      const { erFit } = await import('./commands/er-resolve.js');
      code = await erFit(opts, deps.io);
    });

  er.command('load')
    .description(
      'load PERSON / ORG records (JSONL) into a running entity-resolution service, which resolves them into the graph',
    )
    .requiredOption('--in <file>', 'records, one JSON object a line (as for `af er resolve`)')
    .addOption(
      new Option('--er <host:port>', 'entity-resolution gRPC address')
        .env('ENTITY_RESOLUTION_URL')
        .default('127.0.0.1:50056'),
    )
    .option(
      '--user <id>',
      'whose graph (with SERVICE_AUTH_SECRET; an API key decides the user)',
      'system:er-load',
    )
    .addOption(
      new Option('--batch <n>', 'records per call').argParser(positiveInt('--batch', 10_000)).default(500),
    )
    .addOption(new Option('--api-key <key>', 'API key (exchanged at the gateway)').env('AF_API_KEY'))
    .addOption(new Option('--gateway <url>', 'gateway URL for the API key').env('AF_GATEWAY_URL'))
    .action(
      async (opts: {
        in: string;
        er: string;
        user: string;
        batch: number;
        apiKey?: string;
        gateway?: string;
      }) => {
        if (opts.batch < 1) throw new CliError('--batch must be at least 1');
        const { erLoad } = await import('./commands/er-load.js');
        code = await erLoad(
          {
            ...opts,
            ...(process.env.SERVICE_AUTH_SECRET ? { secret: process.env.SERVICE_AUTH_SECRET } : {}),
          },
          deps.io,
        );
      },
    );

  const plugin = program.command('plugin').description('develop plugin services (@af/plugin-sdk)');
  plugin
    .command('dev')
    .description('serve a plugin module against a plugin registry (connector-runtime) until Ctrl-C')
    .argument(
      '<plugin-module>',
      'JavaScript module exporting a definePlugin(...) result as `plugin` or default',
    )
    .addOption(
      new Option('--registry <host:port>', 'connector-runtime gRPC address')
        .env('PLUGIN_REGISTRY_URL')
        .default('127.0.0.1:50053'),
    )
    .addOption(
      new Option('--token <token>', 'registration token (default: the one `pnpm start` keeps in .af-data/)').env(
        'PLUGIN_REGISTRATION_TOKEN',
      ),
    )
    // The plugin's own settings (what its `runPlugin` main reads) apply here too; an option overrides them.
    .addOption(new Option('--host <host>', 'interface to listen on').env('PLUGIN_HOST').default('127.0.0.1'))
    .addOption(
      new Option('--port <port>', 'port to listen on (0: any free one)')
        .env('PLUGIN_PORT')
        .argParser(positiveInt('--port', 65535))
        .default(0),
    )
    .addOption(new Option('--advertise <host:port>', 'address the registry should call').env('PLUGIN_ADVERTISE_ADDRESS'))
    .addOption(
      new Option('--heartbeat <seconds>', 'heartbeat at least this often')
        .env('PLUGIN_HEARTBEAT_SECONDS')
        .argParser(positiveInt('--heartbeat', 3600)),
    )
    .addOption(new Option('--log-level <level>', "the plugin's own log level").env('LOG_LEVEL').default('warn'))
    .action(
      async (
        modulePath: string,
        opts: {
          registry: string;
          token?: string;
          host: string;
          port: number;
          advertise?: string;
          heartbeat?: number;
          logLevel: string;
        },
      ) => {
        // Loaded on use: the plugin SDK brings gRPC and the contracts, which `validate` does not need.
        const { pluginDev } = await import('./commands/plugin-dev.js');
        code = await pluginDev(
          modulePath,
          {
            registry: opts.registry,
            token: opts.token ?? devRegistrationToken(process.cwd(), process.env) ?? '',
            host: opts.host,
            port: opts.port,
            logLevel: opts.logLevel,
            ...(opts.advertise ? { advertise: opts.advertise } : {}),
            ...(opts.heartbeat ? { heartbeatSeconds: opts.heartbeat } : {}),
          },
          deps.io,
          deps.stop,
        );
      },
    );

  return {
    program,
    run: async (argv) => {
      code = 0;
      try {
        await program.parseAsync(argv, { from: 'user' });
        return code;
      } catch (err) {
        if (err instanceof CommanderError) {
          // An unknown command gets the usage after commander's one-line error; `af` alone already printed it.
          if (err.code === 'commander.unknownCommand') deps.io.err(program.helpInformation());
          return err.exitCode;
        }
        if (err instanceof CliError) {
          deps.io.err(`af: ${err.message}`);
          for (const d of err.details) deps.io.err(`  ${d}`);
          return 1;
        }
        deps.io.err(`af: unexpected error: ${(err as Error)?.stack ?? String(err)}`);
        return 1;
      }
    },
  };
}
