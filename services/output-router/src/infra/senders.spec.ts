import { parseChannelPlugins } from './channel-sender.js';
import { EmailSender, transportOptions } from './email-sender.js';

describe('parseChannelPlugins', () => {
  it('maps channel names to plugin tools', () => {
    expect(parseChannelPlugins('slack=slack-webhook.post_message, ops=pager.notify')).toEqual({
      ok: true,
      map: { slack: { plugin: 'slack-webhook', tool: 'post_message' }, ops: { plugin: 'pager', tool: 'notify' } },
    });
    expect(parseChannelPlugins('')).toEqual({ ok: true, map: {} });
  });

  it('names the entry that is not <channel>=<plugin>.<tool>', () => {
    expect(parseChannelPlugins('slack=slack-webhook')).toEqual({ ok: false, error: expect.stringContaining('"slack=slack-webhook"') });
  });
});

describe('email transport', () => {
  it('reads host, port, TLS and credentials from the URL', () => {
    expect(transportOptions('smtps://me%40x.org:p%3Ass@mail.example.com', 5000)).toMatchObject({
      host: 'mail.example.com',
      port: 465,
      secure: true,
      auth: { user: 'me@x.org', pass: 'p:ss' },
      connectionTimeout: 5000,
    });
    expect(transportOptions('smtp://127.0.0.1:2525', 100)).toMatchObject({ host: '127.0.0.1', port: 2525, secure: false });
    expect(transportOptions('smtp://127.0.0.1:2525', 100).auth).toBeUndefined();
  });

  it('is off without SMTP_URL and says so when asked to send', async () => {
    const off = new EmailSender({ from: 'a@b.c', timeoutMs: 100 });
    expect(off.enabled).toBe(false);
    await expect(off.send({ to: ['x@y.z'], subject: 's', text: 't', deliveryKey: 'k' })).rejects.toThrow(/SMTP_URL is not set/);
  });
});
