/**
 * `GET /api/agent-factory/workspace/notifications/stream`: new notifications
 * as server-sent events (`event: notification`), each with an id a client
 * sends back as `Last-Event-ID` to resume. output-router is asked every
 * NOTIFICATION_POLL_MS (the inbox is a table, not an event stream); a
 * stream without Last-Event-ID starts with what arrives after it opened.
 */
import { Controller, Get, Inject, Req, Res, UseGuards } from '@nestjs/common';
import type { Request, Response } from 'express';
import type { common } from '@af/contracts';
import { AppError, call } from '@af/service-kit';
import { AuthGuard, CurrentUser } from '../http/auth.guard.js';
import { GATEWAY_DEPS, type GatewayDeps } from '../http/deps.js';
import { cursorId, newerThan, parseCursor, type Cursor } from './notification-cursor.js';
import { workspaceClient } from './workspace.controller.js';
import { notificationView } from './workspace.views.js';

const POLL_MS = 1_000;
const KEEPALIVE_MS = 15_000;

@Controller('api/agent-factory/workspace/notifications')
@UseGuards(AuthGuard)
export class NotificationStreamController {
  constructor(@Inject(GATEWAY_DEPS) private readonly deps: GatewayDeps) {}

  @Get('stream')
  async stream(@CurrentUser() principal: common.Principal, @Req() req: Request, @Res() res: Response) {
    const ws = workspaceClient(this.deps);
    const resumed = parseCursor(req.headers['last-event-id'] as string | undefined);
    if (resumed === null) throw AppError.invalid('Last-Event-ID', 'is not an event id of this stream');
    // Without a resume point: the newest existing notification (nothing older is sent).
    let cursor: Cursor = resumed ??
      (await call(ws.listNotifications({ principal, unreadOnly: false, pageSize: 1, pageToken: '' })))
        .notifications[0] ?? { createdAt: new Date(0).toISOString(), id: '' };
    res
      .status(200)
      .set({
        'Content-Type': 'text/event-stream',
        'Cache-Control': 'no-cache, no-transform',
        Connection: 'keep-alive',
        'X-Accel-Buffering': 'no',
      });
    res.flushHeaders();
    let closed = false;
    const keepAlive = setInterval(() => res.write(': keep-alive\n\n'), KEEPALIVE_MS);
    const poll = async () => {
      if (closed) return;
      try {
        const { notifications } = await call(
          ws.listNotifications({ principal, unreadOnly: false, pageSize: 100, pageToken: '' }),
        );
        for (const n of newerThan(notifications, cursor)) {
          cursor = { createdAt: n.createdAt, id: n.id };
          res.write(
            `id: ${cursorId(cursor)}\nevent: notification\ndata: ${JSON.stringify(notificationView(n))}\n\n`,
          );
        }
      } catch (err) {
        this.deps.kit.log.warn({ err }, 'notification stream poll failed');
      }
      if (!closed) timer = setTimeout(() => void poll(), POLL_MS);
    };
    let timer: NodeJS.Timeout | undefined = setTimeout(() => void poll(), 0);
    req.on('close', () => {
      closed = true;
      clearTimeout(timer);
      clearInterval(keepAlive);
      res.end();
    });
  }
}
