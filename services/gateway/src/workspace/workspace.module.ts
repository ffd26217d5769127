/** What the gateway module registers for the workspace: the stream first, so `notifications/stream` is not taken for a parameter. */
import { NotificationStreamController } from './notification-stream.controller.js';
import { WorkspaceController } from './workspace.controller.js';

export const WORKSPACE_CONTROLLERS = [NotificationStreamController, WorkspaceController];
