// Types of scripts/demo-api.mjs, for the TypeScript tests that serve its answers.
export declare const DEMO_API_DEFAULT_PORT: number;
export declare const DEMO_ORGS: ReadonlyArray<{ id: string; name: string; city: string; founded: number }>;
export declare const DEMO_FILINGS: Readonly<Record<string, ReadonlyArray<{ year: number; revenue: number; expenses: number }>>>;
export declare function demoResponse(method: string, path: string, query?: Record<string, string | string[]>): { status: number; json: unknown };
export declare function startDemoApi(opts?: { port?: number; host?: string }): Promise<{ port: number; url: string; close(): Promise<void> }>;
export declare function startDevDemo(
  env: Record<string, string | undefined>,
  say: (msg: string) => void,
): Promise<{ api: { port: number; url: string; close(): Promise<void> }; connectorEnv: { CONNECTOR_EGRESS_ALLOW: string } } | undefined>;
