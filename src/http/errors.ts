/** The one error model: services throw ApiError; the error handler turns it into the spec's body. */

export interface FieldError {
  field: string;
  message: string;
}

export const STATUS_NAMES: Record<number, string> = {
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  405: 'Method Not Allowed',
  408: 'Request Timeout',
  409: 'Conflict',
  410: 'Gone',
  413: 'Payload Too Large',
  414: 'URI Too Long',
  415: 'Unsupported Media Type',
  422: 'Data Validation Failed',
  429: 'Too Many Requests',
  431: 'Request Header Fields Too Large',
  500: 'Internal Server Error',
  503: 'Service Unavailable',
};

export class ApiError extends Error {
  readonly status: number;
  /** A stable number a client may branch on; 0 when the status says it all. */
  readonly code: number;
  readonly fieldErrors: FieldError[] | undefined;
  readonly headers: Record<string, string>;

  constructor(
    status: number,
    message: string,
    options: { code?: number; fieldErrors?: FieldError[]; headers?: Record<string, string> } = {},
  ) {
    super(message);
    this.name = 'ApiError';
    this.status = status;
    this.code = options.code ?? 0;
    this.fieldErrors = options.fieldErrors;
    this.headers = options.headers ?? {};
  }
}

export const badRequest = (message: string) => new ApiError(400, message);
export const unauthorized = (message = 'Your request was made with invalid credentials.') => new ApiError(401, message);
export const forbidden = (message = 'You are not allowed to perform this action.') => new ApiError(403, message);
export const notFound = (what = 'Object') => new ApiError(404, `${what} not found.`);

/** 422 for one or more fields; every failing field gets its own entry. */
export function validationFailed(fieldErrors: FieldError[]): ApiError {
  const message = fieldErrors.map((error) => `${error.field}: ${error.message}`).join(' ');
  return new ApiError(422, message, { fieldErrors });
}

export const invalidField = (field: string, message: string) => validationFailed([{ field, message }]);

export interface ErrorBody {
  name: string;
  message: string;
  code: number;
  status: number;
  errors?: FieldError[];
}

export function errorBody(status: number, message: string, code = 0, errors?: FieldError[]): ErrorBody {
  const body: ErrorBody = { name: STATUS_NAMES[status] ?? 'Error', message, code, status };
  if (errors) body.errors = errors;
  return body;
}
