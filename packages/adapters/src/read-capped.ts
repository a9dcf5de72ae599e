/** Text read from a stream, cut after a byte limit. */
export interface CappedText {
  text: string;
  /** Whether bytes past the limit were left unread. */
  truncated: boolean;
}

/**
 * Reads a byte stream as UTF-8 up to `maxBytes`, then stops reading and destroys the stream, so a
 * huge or endless body costs at most `maxBytes` of memory. A multi-byte character cut at the limit
 * becomes U+FFFD.
 */
export async function readCapped(
  stream: AsyncIterable<Uint8Array> & { destroy(error?: Error): unknown },
  maxBytes: number,
): Promise<CappedText> {
  const chunks: Uint8Array[] = [];
  let size = 0;
  let truncated = false;
  for await (const chunk of stream) {
    const room = maxBytes - size;
    if (chunk.byteLength > room) {
      if (room > 0) chunks.push(chunk.subarray(0, room));
      truncated = true;
      break;
    }
    chunks.push(chunk);
    size += chunk.byteLength;
  }
  if (truncated) stream.destroy();
  return { text: new TextDecoder('utf-8').decode(Buffer.concat(chunks)), truncated };
}
