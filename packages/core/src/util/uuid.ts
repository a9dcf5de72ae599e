/**
 * Random (version 4) UUIDs, as `crypto.randomUUID()` makes them, written as one flat string.
 *
 * Node's `crypto.randomUUID()` joins its 36 characters with `+`, and V8 keeps such a string as a tree of
 * concatenations until something reads its characters: about 490 bytes on the heap for each id kept,
 * against about 60 for the same id flat (measured; a `Map.set` with the id as key does not flatten it).
 * The engine keeps an id for every execution, outbox entry and notification, and the host one for every
 * query, so those trees made about a quarter of what a fire left on the heap, and every young-generation
 * collection copied them.
 *
 * The bytes come from `crypto.getRandomValues` (the platform's cryptographic generator, a web standard),
 * drawn 8 KB at a time (a call costs about as much for 8 KB as for 2: 11 ns an id against 33); the
 * version and variant bits are set as RFC 9562 asks, and `String.fromCharCode` writes the text in one call.
 */

const ID_BYTES = 16;
const POOL_IDS = 512;
const pool = new Uint8Array(ID_BYTES * POOL_IDS);
let next = pool.length;

/** The two hex digits of each byte, as character codes: `HEX_CODES[2b]` and `HEX_CODES[2b + 1]`. */
const HEX_CODES = new Uint16Array(512);
for (let byte = 0; byte < 256; byte += 1) {
  const hex = byte.toString(16).padStart(2, '0');
  HEX_CODES[2 * byte] = hex.charCodeAt(0);
  HEX_CODES[2 * byte + 1] = hex.charCodeAt(1);
}

/** Where each byte's two digits go in `xxxxxxxx-xxxx-4xxx-yxxx-xxxxxxxxxxxx`. */
const DIGIT_AT = [0, 2, 4, 6, 9, 11, 14, 16, 19, 21, 24, 26, 28, 30, 32, 34];
const DASH = 0x2d;
/** The text's character codes, written over for each id (the dashes stay). */
const codes: number[] = new Array<number>(36).fill(DASH);

/** A random version 4 UUID in lower case, such as `3b241101-e2bb-4255-8caf-4136c566a962`. */
export function randomUuid(): string {
  if (next === pool.length) {
    crypto.getRandomValues(pool);
    next = 0;
  }
  for (let index = 0; index < ID_BYTES; index += 1) {
    let byte = pool[next + index] as number;
    // Version 4 in the high nibble of byte 6, the variant 10xx in the high bits of byte 8.
    if (index === 6) byte = (byte & 0x0f) | 0x40;
    else if (index === 8) byte = (byte & 0x3f) | 0x80;
    const at = DIGIT_AT[index] as number;
    codes[at] = HEX_CODES[2 * byte] as number;
    codes[at + 1] = HEX_CODES[2 * byte + 1] as number;
  }
  next += ID_BYTES;
  return String.fromCharCode.apply(null, codes);
}
