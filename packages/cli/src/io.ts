/** Where a command writes: lines to stdout (results) and stderr (progress, problems). */
export interface CliIo {
  out(text: string): void;
  err(text: string): void;
}

export const processIo: CliIo = {
  out: (text) => void process.stdout.write(text.endsWith('\n') ? text : `${text}\n`),
  err: (text) => void process.stderr.write(text.endsWith('\n') ? text : `${text}\n`),
};

/** A command's problem the user must fix; printed as `af: <message>`, exit code 1. */
export class CliError extends Error {
  override readonly name = 'CliError';
  constructor(
    message: string,
    readonly details: string[] = [],
  ) {
    super(message);
  }
}
