/**
 * The one error of the `transform_data` action. It always means the caller
 * sent something unusable (a bad operation, a non-array `inputs.data`), so its
 * code is fixed: the orchestrator maps it to `INVALID_ARGUMENT` with `field`
 * and `reason` as the field violation, and never retries it.
 */
export class TransformError extends Error {
  readonly code = 'INVALID_ARGUMENT' as const;

  /**
   * @param field where the problem is, e.g. `params.operations[2].operator` or `inputs.data`
   * @param reason what is wrong and what would be accepted
   */
  constructor(
    readonly field: string,
    readonly reason: string,
  ) {
    super(`${field}: ${reason}`);
    this.name = 'TransformError';
  }
}
