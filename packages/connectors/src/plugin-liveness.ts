/**
 * Whether a registered plugin can take calls. A plugin instance is live while
 * its last heartbeat is at most MISSED_HEARTBEATS intervals old; a plugin with
 * no live instance is `inactive` and its tools answer UNAVAILABLE with a
 * retry-after of one interval (the soonest a restarted plugin can be back).
 */

export type PluginStatus = 'active' | 'inactive' | 'disabled';

/** Heartbeats a plugin may miss before it counts as gone. */
export const MISSED_HEARTBEATS = 3;

/** How old a heartbeat may be for its instance to count as live. */
export function liveWindowMs(heartbeatSeconds: number): number {
  return MISSED_HEARTBEATS * heartbeatSeconds * 1000;
}

/**
 * Instances not heard from for this long are forgotten (a later heartbeat of
 * theirs answers `known: false`, and they register again).
 */
export function forgetAfterMs(heartbeatSeconds: number): number {
  return Math.max(10 * heartbeatSeconds * 1000, 300_000);
}

/** `ageMs` of the freshest heartbeat, undefined when the plugin has no instance at all. */
export function pluginStatus(
  plugin: { enabled: boolean; freshestHeartbeatAgeMs: number | undefined },
  heartbeatSeconds: number,
): PluginStatus {
  if (!plugin.enabled) return 'disabled';
  if (plugin.freshestHeartbeatAgeMs === undefined) return 'inactive';
  return plugin.freshestHeartbeatAgeMs <= liveWindowMs(heartbeatSeconds) ? 'active' : 'inactive';
}
