import { checkDocument, loadDocument } from '@eql/syntax';
import type { FastifyInstance, FastifyRequest, RawRequestDefaultExpression } from 'fastify';
import { ApiError } from './errors.js';
import { matchedRoute } from './matched-route.js';
import { readTextBody } from './read-text-body.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The route takes a query request in the text form too (`content-type: text/x-eql`); see {@link TEXT_FORM_ROUTE}. */
    textForm?: boolean;
  }
}

/** The media type of a query request in the text form (`docs/text-syntax.md`). */
export const TEXT_FORM_TYPE = 'text/x-eql';

/** Largest text-form body by default (EQL_TEXT_FORM_BODY_LIMIT; never above EQL_BODY_LIMIT unless set): a query's text is a few KB. */
export const TEXT_FORM_BODY_LIMIT = 64 * 1024;

/** The route config of the routes that take a query request: validate, create, preview, and the draft upserts. */
export const TEXT_FORM_ROUTE = { textForm: true } as const;

/** The text-form body limit of a host: the one configured, else the default capped by the body limit of every request. */
export function textFormBodyLimit(config: { textFormBodyLimit?: number; bodyLimit: number }): number {
  return config.textFormBodyLimit ?? Math.min(TEXT_FORM_BODY_LIMIT, config.bodyLimit);
}

/**
 * Query requests may also be sent in the text form (`content-type: text/x-eql`): the body is read with
 * `loadDocument` of @eql/syntax, as the command line and the language server read it, and handed to
 * the routes as the JSON request it stands for. The text is kept as the raw body (signatures cover it).
 * Syntax errors are a 400 `invalid_syntax` with each error's message, line and column, and the validator's
 * diagnostics of the parts read without error (`details.diagnostics`), so one answer names every mistake.
 *
 * Reading the text form is the dearest parse the host does, so it is done only where it is needed and
 * only when the cheap checks have passed: the routes marked {@link TEXT_FORM_ROUTE} take it, up to
 * `bodyLimit` bytes; on every other path (a route that does not take it, a path no route serves) it is a
 * 415 `unsupported_media_type` answered before a byte of the body is read. The parser runs after the
 * onRequest hooks, so an Auto route's key (its authentication, Auto, the quotas) is checked before.
 */
export function registerTextFormBody(app: FastifyInstance, options: { bodyLimit: number }): void {
  const { bodyLimit } = options;
  app.addContentTypeParser(TEXT_FORM_TYPE, async (request: FastifyRequest, payload: RawRequestDefaultExpression) => {
    if (matchedRoute(request).config?.textForm !== true) throw notTaken(request);
    const text = await readTextBody(payload, request.headers['content-length'], bodyLimit, 'the text form');
    request.rawBody = text;
    return readTextForm(text);
  });
}

function notTaken(request: FastifyRequest): ApiError {
  const path = request.url.split('?')[0] ?? '';
  return new ApiError(
    'unsupported_media_type',
    `${request.method} ${path} does not take the text form (${TEXT_FORM_TYPE}): send application/json. The text form is taken by validate, create, preview and the draft upserts of /v2/auto/queries`,
    { contentType: TEXT_FORM_TYPE },
  );
}

/** The JSON request a text-form body stands for, or a 400 `invalid_syntax` naming every mistake. */
function readTextForm(text: string): unknown {
  const document = loadDocument(text, 'text');
  if (document.errors.length === 0 && document.value !== undefined) return document.value;
  const errors = document.errors.map((error) => ({ message: error.message, line: error.range.start.line, column: error.range.start.column }));
  const first = errors[0];
  const message = first ? `the text form has ${errors.length} syntax error${errors.length === 1 ? '' : 's'}: ${first.line}:${first.column} ${first.message}` : 'the text form could not be read';
  const diagnostics = checkDocument(document).diagnostics.map(({ diagnostic, range }) => ({ code: diagnostic.code, severity: diagnostic.severity, message: diagnostic.message, path: diagnostic.path, line: range?.start.line, column: range?.start.column }));
  throw new ApiError('invalid_syntax', message, { errors, diagnostics });
}
