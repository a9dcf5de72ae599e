export { parseTokens } from './parser/parser.js';
