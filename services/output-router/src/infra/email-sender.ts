/**
 * Email through SMTP with nodemailer. Off when SMTP_URL is unset: a
 * destination asking for email is then an error saying so (never a silent
 * drop). Each message carries its delivery key as Message-ID, so a receiving
 * server can drop the rare duplicate of a crash between sending and
 * recording (the delivery log is checked before sending).
 */
import nodemailer, { type Transporter } from 'nodemailer';
import type SMTPTransport from 'nodemailer/lib/smtp-transport/index.js';
import { AppError } from '@af/service-kit';

export interface EmailMessage {
  to: string[];
  subject: string;
  text: string;
  /** The delivery key: the Message-ID's local part. */
  deliveryKey: string;
}

export interface EmailSettings {
  /** `smtp://user:pass@host:port` or `smtps://…`; undefined: email is off. */
  url?: string | undefined;
  from: string;
  timeoutMs: number;
}

/** `smtp[s]://[user:pass@]host[:port]` → nodemailer SMTP options (smtps: TLS from the start, port 465 by default; smtp: 587, STARTTLS when offered). */
export function transportOptions(url: string, timeoutMs: number): SMTPTransport.Options {
  const u = new URL(url);
  const secure = u.protocol === 'smtps:';
  return {
    host: u.hostname,
    port: u.port ? Number(u.port) : secure ? 465 : 587,
    secure,
    ...(u.username ? { auth: { user: decodeURIComponent(u.username), pass: decodeURIComponent(u.password) } } : {}),
    connectionTimeout: timeoutMs,
    greetingTimeout: timeoutMs,
    socketTimeout: timeoutMs,
  };
}

export class EmailSender {
  private readonly transport: Transporter | undefined;

  constructor(private readonly settings: EmailSettings) {
    this.transport = settings.url ? nodemailer.createTransport(transportOptions(settings.url, settings.timeoutMs)) : undefined;
  }

  get enabled(): boolean {
    return this.transport !== undefined;
  }

  async send(m: EmailMessage): Promise<{ message_id: string; accepted: number; rejected: number }> {
    if (!this.transport)
      throw new AppError('FAILED_PRECONDITION', 'email is off in this deployment: SMTP_URL is not set');
    const messageId = `<${m.deliveryKey.replace(/[^A-Za-z0-9.:_-]/g, '-') || Date.now()}@agent-factory>`;
    try {
      const info = await this.transport.sendMail({
        from: this.settings.from,
        to: m.to,
        subject: m.subject,
        text: m.text,
        messageId,
      });
      return { message_id: messageId, accepted: info.accepted?.length ?? 0, rejected: info.rejected?.length ?? 0 };
    } catch (err) {
      // The SMTP server's answer, never the URL (it may hold credentials).
      const e = err as { code?: string; responseCode?: number; message?: string };
      throw new AppError(
        'UNAVAILABLE',
        `the SMTP server did not take the message: ${e.code ?? ''}${e.responseCode ? ` ${e.responseCode}` : ''} ${(e.message ?? '').replace(/smtps?:\/\/\S+/g, 'smtp://…')}`.trim(),
      );
    }
  }

  close(): void {
    this.transport?.close();
  }
}
