/** The line in-process-main prints once every service of the stack is up. */
export const IN_PROCESS_READY = 'in-process stack ready';
