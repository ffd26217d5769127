/**
 * StreamRunEvents: frames after `afterSeq` from the durable event log, then
 * live ones from NATS — each seq once, in order — ending after `complete`.
 * A gap that persists (a frame still in an outbox, or one the bus no longer
 * retains) is filled from the log.
 */
import { decodeJson, FrameSequencer, type Closeable, type ServiceKit } from '@af/service-kit';
import { Observable } from 'rxjs';
import type { RunFrame } from '../domain/run-state.js';
import type { RunRepository } from '../infra/run.repository.js';
import type { RunCommands } from './run-commands.js';

const GAP_FILL_MS = 1000;

export async function streamRunEvents(
  deps: { runs: RunCommands; repo: RunRepository; kit: ServiceKit },
  userId: string,
  runId: string,
  afterSeq: number,
): Promise<Observable<RunFrame>> {
  // Ownership and argument checks happen before the stream opens, so they become a status.
  const replay = await deps.runs.events(userId, runId, afterSeq);
  return new Observable<RunFrame>((subscriber) => {
    const sequencer = new FrameSequencer<RunFrame>(afterSeq);
    let sub: Closeable | undefined;
    let gapTimer: NodeJS.Timeout | undefined;
    let done = false;
    const finish = () => {
      done = true;
      if (gapTimer) clearTimeout(gapTimer);
      void sub?.close().catch(() => undefined);
    };
    const accept = (frame: RunFrame) => {
      if (done) return;
      for (const f of sequencer.accept(frame)) {
        subscriber.next(f);
        if (f.type === 'complete') {
          finish();
          subscriber.complete();
          return;
        }
      }
      if (sequencer.hasGap() && !gapTimer) {
        gapTimer = setTimeout(() => {
          gapTimer = undefined;
          deps.repo
            .events(runId, sequencer.last)
            .then((frames) => frames.forEach(accept))
            .catch((err) => deps.kit.log.warn({ err, runId }, 'gap fill failed'));
        }, GAP_FILL_MS);
      }
    };
    deps.kit.bus
      .subscribe(deps.kit.subjects.runAll(runId), (m) => {
        try {
          accept(decodeJson<RunFrame>(m.data));
        } catch (err) {
          deps.kit.log.warn({ err, subject: m.subject }, 'undecodable run frame');
        }
      })
      .then((s) => {
        sub = s;
        if (done) void s.close();
        replay.forEach(accept);
      })
      .catch((err) => subscriber.error(err));
    return finish;
  });
}
