export type FieldError = { path: string; message: string };

/** An error with an HTTP status that the error handler turns into `{ detail, errors }`. */
export class HttpError extends Error {
  constructor(
    readonly statusCode: number,
    readonly detail: string,
    readonly errors?: FieldError[],
    readonly headers?: Record<string, string>,
    readonly extra?: Record<string, unknown>,
  ) {
    super(detail);
  }
}

export const badRequest = (detail: string, errors?: FieldError[]) => new HttpError(400, detail, errors);

/** The 400 for a list of field errors; its detail joins them ('config.port: Must be a number; name: Required'). */
export function validationError(errors: FieldError[]): HttpError {
  const detail = [...new Set(errors.map((e) => (e.path === '(root)' ? e.message : `${e.path}: ${e.message}`)))].join('; ');
  return badRequest(detail, errors);
}
export const unauthorized = (detail = 'Authentication Required') => new HttpError(401, detail);
export const forbidden = (detail: string) => new HttpError(403, detail);
export const notFound = (detail: string) => new HttpError(404, detail);
export const conflict = (detail: string, errors?: FieldError[]) => new HttpError(409, detail, errors);
