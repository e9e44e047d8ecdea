/**
 * The API error catalogue: every error code the controller emits, with its HTTP status and default message.
 * One list, shared by the controller (which throws them) and the CLI (which maps them to exit codes),
 * so that a code cannot drift between the two halves. Codes and statuses follow the OpenZiti controller.
 */
export const API_ERRORS = {
  NOT_FOUND: { status: 404, message: 'The resource requested was not found or is no longer available' },
  UNHANDLED: { status: 500, message: 'An unhandled error occurred' },
  COULD_NOT_VALIDATE: {
    status: 400,
    message: 'The supplied request contains an invalid document or no valid accept content were available, see cause',
  },
  COULD_NOT_PARSE_BODY: { status: 400, message: 'The body of the request could not be parsed' },
  INVALID_CONTENT_TYPE: { status: 400, message: 'The content type of the request is not supported' },
  REQUEST_ENTITY_TOO_LARGE: { status: 413, message: 'The request body is larger than the server accepts' },
  METHOD_NOT_ALLOWED: { status: 405, message: 'The resource requested does not support this HTTP verb' },
  UNAUTHORIZED: {
    status: 401,
    message: 'The request could not be completed. The session is not authorized or the credentials are invalid',
  },
  INVALID_AUTH: { status: 401, message: 'The authentication request failed' },
  FORBIDDEN: { status: 403, message: 'The operation is not allowed on this resource' },
  INVALID_AUTH_METHOD: { status: 400, message: 'The supplied authentication method is not supported' },
  INVALID_FILTER: { status: 400, message: 'The filter query supplied is invalid' },
  INVALID_PAGINATION: { status: 400, message: 'The pagination properties provided are invalid' },
  INVALID_SORT_IDENTIFIER: { status: 400, message: 'The sort order supplied is invalid' },
  ENTITY_CAN_NOT_BE_DELETED: { status: 400, message: 'The entity requested for delete can not be deleted' },
  ENTITY_CAN_NOT_BE_UPDATED: { status: 400, message: 'The entity requested for update can not be updated' },
  CAN_NOT_DELETE_REFERENCED_ENTITY: {
    status: 409,
    message: 'The entity can not be deleted while other entities reference it',
  },
  CAN_NOT_UPDATE_AUTHENTICATOR: { status: 409, message: 'The authenticator cannot be updated' },
  INVALID_AUTHENTICATOR_PROPERTIES: { status: 400, message: 'The authenticator properties are invalid for its method' },
  MAX_AUTHENTICATOR_METHODS_REACHED: {
    status: 409,
    message: 'The identity already has an authenticator of this method',
  },
  ENROLLMENT_EXISTS: { status: 409, message: 'An enrollment of this method already exists for the identity' },
  ENROLLMENT_EXPIRED: { status: 400, message: 'The enrollment has expired' },
  INVALID_ENROLLMENT_TOKEN: { status: 400, message: 'The enrollment token is not valid' },
  INVALID_ENROLL_METHOD: { status: 400, message: 'The enrollment method is not valid for this token' },
  COULD_NOT_PROCESS_CSR: { status: 400, message: 'The certificate signing request could not be processed' },
  UNSUPPORTED_MEDIA: { status: 415, message: 'The requested media type cannot be produced' },
  CA_ALREADY_VERIFIED: { status: 409, message: 'The CA has already been verified' },
  EXPECTED_PEM_CERTIFICATE: { status: 400, message: 'A PEM certificate was expected' },
  COULD_NOT_PARSE_DER_BLOCK: { status: 400, message: 'The certificate could not be parsed' },
  INVALID_COMMON_NAME: { status: 400, message: "The certificate's common name is not the verification token" },
  CERTIFICATE_FAILED_VALIDATION: { status: 400, message: 'The certificate was not signed by the CA' },
  CERTIFICATE_IS_NOT_CA: { status: 400, message: 'The certificate is not a CA certificate' },
  INVALID_CERT_PEM: { status: 400, message: 'The certificate PEM is not valid' },
  INVALID_CLIENT_CERT: { status: 400, message: 'The client certificate is missing or not valid' },
  ENROLLMENT_CA_NOT_VALID: { status: 400, message: "The enrollment's CA is not valid for this certificate" },
  ENROLLMENT_NO_VALID_CAS: { status: 400, message: 'No valid CA issued the certificate' },
  ENROLLMENT_IDENTITY_ALREADY_ENROLLED: { status: 409, message: 'The certificate has already been enrolled' },
  INVALID_ENROLLMENT_NOT_ALLOWED: { status: 409, message: 'The configuration does not allow this enrollment' },
  CERT_IN_USE: { status: 409, message: 'The certificate is already in use by an authenticator' },
  MISSING_CERT_CLAIM: {
    status: 400,
    message: 'The certificate is expected to contain an externalId, which was not found',
  },
  NO_EDGE_ROUTERS_AVAILABLE: {
    status: 400,
    message: 'No edge routers are assigned and online to handle the requested connection',
  },
  INVALID_POSTURE: { status: 409, message: 'Posture response data is missing or wrong' },
  MFA_EXISTS: { status: 409, message: 'An MFA enrollment already exists for the identity' },
  MFA_ENROLLMENT_NOT_STARTED: { status: 404, message: 'No MFA enrollment has been started for the identity' },
  MFA_NOT_ENROLLED: { status: 409, message: 'The identity has not completed MFA enrollment' },
  MFA_INVALID_TOKEN: { status: 400, message: 'The supplied MFA code is not valid' },
  SERVER_TOO_MANY_REQUESTS: { status: 429, message: 'Too many requests, try again later' },
  RATE_LIMITED: {
    status: 429,
    message: 'The resource is rate limited and the rate limit has been exceeded. Please try again later',
  },
  TIMEOUT: { status: 503, message: 'The request timed out' },
  STORE_UNAVAILABLE: { status: 503, message: "The controller's database cannot serve the request right now" },
} as const;

export type ApiErrorCode = keyof typeof API_ERRORS;

/**
 * A field-level cause, as OpenZiti sends it for COULD_NOT_VALIDATE. `value` is the offending value rendered as text.
 */
export interface FieldCause {
  field: string;
  reason: string;
  value: string;
}

/** A nested cause carrying a message (OpenZiti labels these UNHANDLED even on 4xx); it may nest a cause of its own. */
export interface MessageCause {
  code: string;
  message: string;
  cause?: ErrorCause;
}

/**
 * A cause with a message and data, as OpenZiti sends posture failures (INVALID_POSTURE: failed checks by policy id).
 */
export interface DataCause {
  message: string;
  data: Record<string, unknown>;
}

/** What a controller may send as `cause`; a client also keeps a bare string, which other servers send. */
export type ErrorCause = FieldCause | MessageCause | DataCause | string;

/** The `error` member of an error envelope on the wire. */
export interface WireError {
  code: string;
  message: string;
  requestId?: string;
  cause?: ErrorCause;
}

/** An API error: thrown by controller code, parsed from responses by the client. */
export class ApiError extends Error {
  readonly code: string;
  readonly status: number;
  override readonly cause?: ErrorCause;
  readonly requestId?: string;

  constructor(code: string, opts: { status?: number; message?: string; cause?: ErrorCause; requestId?: string } = {}) {
    const known = (API_ERRORS as Record<string, { status: number; message: string }>)[code];
    super(opts.message ?? known?.message ?? code);
    this.name = 'ApiError';
    this.code = code;
    this.status = opts.status ?? known?.status ?? 500;
    this.cause = opts.cause;
    this.requestId = opts.requestId;
  }

  toWire(requestId: string): WireError {
    const wire: WireError = { code: this.code, message: this.message, requestId };
    if (this.cause) wire.cause = this.cause;
    return wire;
  }
}

/** Shorthand for the most common client mistake: one field is invalid. */
export function invalidField(field: string, reason: string, value: unknown): ApiError {
  return new ApiError('COULD_NOT_VALIDATE', { cause: { field, reason, value: renderValue(value) } });
}

export function notFound(entity: string, id: string): ApiError {
  return new ApiError('NOT_FOUND', { cause: { code: 'UNHANDLED', message: `${entity} with id ${id} not found` } });
}

export function renderValue(value: unknown): string {
  if (typeof value === 'string') return value;
  if (value === undefined) return '';
  try {
    return JSON.stringify(value);
  } catch {
    return String(value);
  }
}
