import { checkDocument, loadDocument } from '@eql/syntax';
import type { FastifyInstance } from 'fastify';
import { ApiError } from './errors.js';

/** The media type of a query request in the text form (`docs/text-syntax.md`). */
export const TEXT_FORM_TYPE = 'text/x-eql';

/**
 * Query requests may also be sent in the text form (`content-type: text/x-eql`): the body is read with
 * `loadDocument` of @eql/syntax, as the command line and the language server read it, and handed to
 * the routes as the JSON request it stands for. The text is kept as the raw body (signatures cover it).
 * Syntax errors are a 400 `invalid_syntax` with each error's message, line and column, and the validator's
 * diagnostics of the parts read without error (`details.diagnostics`), so one answer names every mistake.
 */
export function registerTextFormBody(app: FastifyInstance): void {
  app.addContentTypeParser(TEXT_FORM_TYPE, { parseAs: 'string' }, (request, body, done) => {
    const text = typeof body === 'string' ? body : body.toString('utf8');
    request.rawBody = text;
    const document = loadDocument(text, 'text');
    if (document.errors.length === 0 && document.value !== undefined) {
      done(null, document.value);
      return;
    }
    const errors = document.errors.map((error) => ({ message: error.message, line: error.range.start.line, column: error.range.start.column }));
    const first = errors[0];
    const message = first ? `the text form has ${errors.length} syntax error${errors.length === 1 ? '' : 's'}: ${first.line}:${first.column} ${first.message}` : 'the text form could not be read';
    const diagnostics = checkDocument(document).diagnostics.map(({ diagnostic, range }) => ({ code: diagnostic.code, severity: diagnostic.severity, message: diagnostic.message, path: diagnostic.path, line: range?.start.line, column: range?.start.column }));
    done(new ApiError(400, 'invalid_syntax', message, { errors, diagnostics }), undefined);
  });
}
