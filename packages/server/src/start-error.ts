/**
 * The host cannot start as configured, for a reason its operator fixes in the configuration (the EQL_*
 * variables, the flags of `eql serve`) or its surroundings (a port in use, a database or a bus that
 * cannot be reached). Its message is one line naming what to change, without a secret: `eql serve`
 * prints it without a stack trace and exits non-zero, having closed whatever the start had opened.
 */
export class StartError extends Error {
  override name = 'StartError';
}
