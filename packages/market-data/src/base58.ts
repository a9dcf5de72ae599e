const ALPHABET = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz';
const INDEX = new Map([...ALPHABET].map((char, index) => [char, index]));

/** The number of bytes a base58 (Bitcoin alphabet) string decodes to, or undefined when it is not base58. */
export function base58ByteLength(text: string): number | undefined {
  const bytes: number[] = [];
  for (const char of text) {
    let carry = INDEX.get(char);
    if (carry === undefined) return undefined;
    for (let i = 0; i < bytes.length; i += 1) {
      carry += (bytes[i] ?? 0) * 58;
      bytes[i] = carry & 0xff;
      carry >>= 8;
    }
    while (carry > 0) {
      bytes.push(carry & 0xff);
      carry >>= 8;
    }
  }
  let leadingZeros = 0;
  while (text[leadingZeros] === '1') leadingZeros += 1;
  return bytes.length + leadingZeros;
}
