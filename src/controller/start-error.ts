/** A start that cannot go on for a reason the operator can fix (busy port, unusable store): no stack trace. */
export class ControllerStartError extends Error {
  override name = 'ControllerStartError';
}
