/**
 * A node's start committed only if its work outlives a grace period: work
 * that answers sooner has its start written with its completion, in one
 * statement, so a fast read-only call costs one commit instead of two. Only
 * for work that may simply be done again after a crash (nothing records that
 * it began until the grace period ends).
 */
export class LateStart {
  private commit: Promise<void> | undefined;

  constructor(
    /** Writes the node's start (called at most once, when the grace period ends first). */
    private readonly start: () => Promise<void>,
    private readonly graceMs: number,
  ) {}

  /** Whether the start was written (or is being written) on its own. */
  get committed(): boolean {
    return this.commit !== undefined;
  }

  /**
   * The work's answer, once a start written meanwhile is committed (so what
   * the caller writes next comes after it); that write's failure — a lost
   * lease — wins over the work's answer or error.
   */
  async around<T>(work: Promise<T>): Promise<T> {
    const timer = setTimeout(() => {
      this.commit = this.start();
      // Awaited below; never an unhandled rejection while the work still runs.
      this.commit.catch(() => undefined);
    }, this.graceMs);
    try {
      return await work;
    } finally {
      clearTimeout(timer);
      if (this.commit) await this.commit;
    }
  }
}
