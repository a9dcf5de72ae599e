import { Readable } from 'node:stream';

/** A request body the test can watch: how many bytes of it the host pulled. */
export interface WatchedBody {
  stream: Readable;
  /** Bytes the host has pulled from the body so far. */
  pulled(): number;
}

/**
 * A body sent as a stream (`app.inject({ payload: body.stream })`) in chunks of `chunkSize`, pulled only
 * when the host reads it: a host that answers before reading leaves `pulled()` at 0.
 */
export function watchedBody(text: string, chunkSize = 16 * 1024): WatchedBody {
  let offset = 0;
  const stream = new Readable({
    read() {
      if (offset >= text.length) {
        this.push(null);
        return;
      }
      const chunk = text.slice(offset, offset + chunkSize);
      offset += chunk.length;
      this.push(chunk);
    },
  });
  return { stream, pulled: () => offset };
}
