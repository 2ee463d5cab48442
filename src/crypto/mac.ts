import { createHmac, timingSafeEqual } from 'node:crypto';

/** 128 bits: past guessing online, and short enough for a cookie holding several. */
const TAG_BYTES = 16;

/**
 * Short HMAC-SHA256 tags over a list of strings. Each part is length-prefixed, so
 * ('a.b', 'c') and ('a', 'b.c') never share a tag.
 */
export function createTagger(key: Buffer) {
  const tag = (...parts: string[]): string => {
    const hmac = createHmac('sha256', key);
    for (const part of parts) hmac.update(`${part.length}:${part};`);
    return hmac.digest().subarray(0, TAG_BYTES).toString('base64url');
  };
  return {
    tag,
    /** Whether `given` is the tag of `parts`, compared in constant time. */
    verify(given: string, ...parts: string[]): boolean {
      const a = Buffer.from(given);
      const b = Buffer.from(tag(...parts));
      return a.length === b.length && timingSafeEqual(a, b);
    },
  };
}
export type Tagger = ReturnType<typeof createTagger>;
