/**
 * StreamRunEvents: frames after `afterSeq` from the durable event log, then
 * live ones from NATS — each seq once, in order — ending after `complete`
 * (the shared follower in service-kit does the ordering and gap filling).
 */
import { followRunFrames, type Closeable, type ServiceKit } from '@af/service-kit';
import { Observable } from 'rxjs';
import type { RunFrame } from '../domain/run-state.js';
import type { RunRepository } from '../infra/run.repository.js';
import type { RunCommands } from './run-commands.js';

export async function streamRunEvents(
  deps: { runs: RunCommands; repo: RunRepository; kit: ServiceKit },
  userId: string,
  runId: string,
  afterSeq: number,
): Promise<Observable<RunFrame>> {
  // Ownership and argument checks happen before the stream opens, so they become a status.
  const initial = await deps.runs.events(userId, runId, afterSeq);
  return new Observable<RunFrame>((subscriber) => {
    let follower: Closeable | undefined;
    let unsubscribed = false;
    followRunFrames<RunFrame>({
      bus: deps.kit.bus,
      subjects: deps.kit.subjects,
      log: deps.kit.log,
      runId,
      afterSeq,
      initial,
      fetchAfter: (seq) => deps.repo.events(runId, seq),
      onFrame: (f) => subscriber.next(f),
      onEnd: () => subscriber.complete(),
    })
      .then((f) => {
        follower = f;
        if (unsubscribed) void f.close();
      })
      .catch((err) => subscriber.error(err));
    return () => {
      unsubscribed = true;
      void follower?.close();
    };
  });
}
