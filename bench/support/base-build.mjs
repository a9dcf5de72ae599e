// `node --import ./bench/support/base-build.mjs ...`: `@eql/core` is packages/core/dist-base in this process.
import { register } from 'node:module';

register('./base-build-hooks.mjs', import.meta.url);
