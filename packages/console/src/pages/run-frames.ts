import type { RunFrame } from '../api/sse';

/** A node's status after a frame (frames arrive before the run is read again). */
export function statusFromFrame(frame: RunFrame): string | null {
  switch (frame.type) {
    case 'node_start':
      return 'running';
    case 'node_complete':
      return typeof frame.payload?.status === 'string' ? frame.payload.status : 'completed';
    case 'node_error':
      return 'failed';
    case 'hitl_request':
      return 'waiting';
    default:
      return null;
  }
}
