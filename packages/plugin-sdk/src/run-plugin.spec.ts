import { pluginOptionsFromEnv } from './run-plugin.js';

describe('pluginOptionsFromEnv', () => {
  it('reads the PLUGIN_* variables with defaults', () => {
    expect(pluginOptionsFromEnv({ PLUGIN_REGISTRY_URL: 'connector-runtime:50053' })).toEqual({
      host: '0.0.0.0',
      port: 50100,
      registryUrl: 'connector-runtime:50053',
      registrationToken: '',
      logLevel: 'info',
    });
    expect(
      pluginOptionsFromEnv({
        PLUGIN_REGISTRY_URL: '127.0.0.1:1',
        PLUGIN_HOST: '127.0.0.1',
        PLUGIN_PORT: '0',
        PLUGIN_ADVERTISE_ADDRESS: 'slack-plugin:50100',
        PLUGIN_REGISTRATION_TOKEN: 'tok',
        PLUGIN_HEARTBEAT_SECONDS: '2',
        LOG_LEVEL: 'warn',
      }),
    ).toEqual({
      host: '127.0.0.1',
      port: 0,
      registryUrl: '127.0.0.1:1',
      registrationToken: 'tok',
      logLevel: 'warn',
      advertiseAddress: 'slack-plugin:50100',
      heartbeatSeconds: 2,
    });
  });

  it('names every bad variable without echoing values', () => {
    expect(() =>
      pluginOptionsFromEnv({ PLUGIN_PORT: '70000', PLUGIN_ADVERTISE_ADDRESS: 'no-port-secretish' }),
    ).toThrow(
      /PLUGIN_PORT: .*; PLUGIN_ADVERTISE_ADDRESS: must be host:port.*; PLUGIN_REGISTRY_URL: is required/,
    );
    expect(() => pluginOptionsFromEnv({ PLUGIN_ADVERTISE_ADDRESS: 'no-port-secretish' })).not.toThrow(
      /secretish/,
    );
  });
});
