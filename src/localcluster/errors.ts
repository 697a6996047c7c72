/** API errors as the Kubernetes API server reports them: a `Status` object with a code and a reason. */

export type StatusReason =
  | 'NotFound'
  | 'AlreadyExists'
  | 'Conflict'
  | 'Invalid'
  | 'BadRequest'
  | 'MethodNotAllowed'
  | 'UnsupportedMediaType'
  | 'RequestEntityTooLarge'
  | 'Expired'
  | 'Gone'
  | 'NotAcceptable'
  | 'Forbidden'
  | 'Unauthorized'
  | 'InternalError';

export interface StatusDetails {
  name?: string;
  group?: string;
  kind?: string;
  causes?: Array<{ reason?: string; message: string; field?: string }>;
}

export class ApiError extends Error {
  constructor(
    readonly code: number,
    readonly reason: StatusReason,
    message: string,
    readonly details?: StatusDetails,
  ) {
    super(message);
  }

  toStatus(): Record<string, unknown> {
    return {
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: this.message,
      reason: this.reason,
      ...(this.details ? { details: this.details } : {}),
      code: this.code,
    };
  }
}

/** `pods "x"` or `rollouts.argoproj.io "x"`, the way the API server names a resource in messages. */
export const qualified = (group: string, plural: string): string => (group ? `${plural}.${group}` : plural);

export const notFound = (group: string, plural: string, name: string) =>
  new ApiError(404, 'NotFound', `${qualified(group, plural)} "${name}" not found`, { name, group, kind: plural });

export const alreadyExists = (group: string, plural: string, name: string) =>
  new ApiError(409, 'AlreadyExists', `${qualified(group, plural)} "${name}" already exists`, { name, group, kind: plural });

export const conflict = (group: string, plural: string, name: string) =>
  new ApiError(
    409,
    'Conflict',
    `Operation cannot be fulfilled on ${qualified(group, plural)} "${name}": the object has been modified; please apply your changes to the latest version and try again`,
    { name, group, kind: plural },
  );

export const invalid = (kind: string, group: string, name: string, field: string, message: string) =>
  new ApiError(422, 'Invalid', `${kind}${group ? `.${group}` : ''} "${name}" is invalid: ${field}: ${message}`, {
    name,
    group,
    kind,
    causes: [{ reason: 'FieldValueInvalid', message, field }],
  });

export const badRequest = (message: string) => new ApiError(400, 'BadRequest', message);
