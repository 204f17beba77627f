// Reads a response body with a size cap, streamed. Up to the cap the body is kept as text. Beyond it
// the JSON is rebuilt on the fly with every long string cut to its tail (an execution's output is
// one huge base64 string): memory stays around the cap whatever the server sends, the rest of the
// document survives, and the caller learns which strings were cut. A body that is still over twice
// the cap once rebuilt (many strings, huge arrays, garbage) is refused: there is nothing sensible to keep.

export interface CappedBody {
  text: string;
  /** Bytes received. */
  bytes: number;
  /** Each cut string as it now appears in `text` (its kept tail) → its length before the cut. */
  cut: Map<string, number>;
}

export class BodyTooLargeError extends Error {
  constructor(maxBytes: number) {
    super(`the response is over ${maxBytes} bytes and is not one long text that could be cut`);
    this.name = 'BodyTooLargeError';
  }
}

const ESCAPES: Record<string, string> = { '"': '"', '\\': '\\', '/': '/', b: '\b', f: '\f', n: '\n', r: '\r', t: '\t' };

/**
 * Rebuilds JSON text with every string longer than `keep` characters replaced by its last `keep`
 * characters (start aligned to 4 so a base64 tail still decodes). Anything that is not valid JSON
 * stays not valid JSON: the caller's parse reports it.
 */
export class JsonTailKeeper {
  readonly #keep: number;
  readonly #maxOutput: number;
  #out: string[] = [];
  #size = 0;
  #inString = false;
  /** '' no escape pending; '\\' after a backslash; 'u' + hex digits so far inside \uXXXX. */
  #escape = '';
  #pieces: string[] = [];
  #piecesLength = 0;
  /** Characters of the current string so far (decoded). */
  #stringLength = 0;
  readonly cut = new Map<string, number>();

  /** `keep`: characters kept of a long string; `maxOutput`: most characters of rebuilt text. */
  constructor(keep: number, maxOutput: number) {
    this.#keep = keep;
    this.#maxOutput = maxOutput;
  }

  write(chunk: string): void {
    let i = 0;
    while (i < chunk.length) {
      if (!this.#inString) {
        const quote = chunk.indexOf('"', i);
        const end = quote === -1 ? chunk.length : quote;
        this.#emit(chunk.slice(i, end));
        if (quote === -1) return;
        this.#inString = true;
        this.#stringLength = 0;
        i = quote + 1;
        continue;
      }
      if (this.#escape !== '') {
        i = this.#continueEscape(chunk, i);
        continue;
      }
      const quote = chunk.indexOf('"', i);
      const slash = chunk.indexOf('\\', i);
      const stop = quote === -1 ? slash : slash === -1 ? quote : Math.min(quote, slash);
      const end = stop === -1 ? chunk.length : stop;
      if (end > i) this.#append(chunk.slice(i, end));
      if (stop === -1) return;
      if (stop === quote) {
        this.#closeString();
      } else {
        this.#escape = '\\';
      }
      i = stop + 1;
    }
  }

  /** The rebuilt JSON text. */
  finish(): string {
    if (this.#inString) {
      // Unterminated string: emit what we have unquoted-closed so the parse fails as it should.
      this.#emit(`"${this.#pieces.join('')}`);
    }
    return this.#out.join('');
  }

  #continueEscape(chunk: string, i: number): number {
    if (this.#escape === '\\') {
      const c = chunk[i]!;
      if (c === 'u') {
        this.#escape = 'u';
        return i + 1;
      }
      this.#escape = '';
      // An unknown escape is kept as the character: the text was invalid JSON anyway.
      this.#append(ESCAPES[c] ?? c);
      return i + 1;
    }
    const need = 5 - this.#escape.length;
    const digits = chunk.slice(i, i + need);
    this.#escape += digits;
    if (this.#escape.length === 5) {
      const code = Number.parseInt(this.#escape.slice(1), 16);
      this.#escape = '';
      this.#append(Number.isNaN(code) ? '\uFFFD' : String.fromCharCode(code));
    }
    return i + digits.length;
  }

  #append(text: string): void {
    this.#pieces.push(text);
    this.#piecesLength += text.length;
    this.#stringLength += text.length;
    if (this.#piecesLength > this.#keep * 2) {
      const tail = this.#pieces.join('').slice(-this.#keep);
      this.#pieces = [tail];
      this.#piecesLength = tail.length;
    }
  }

  #closeString(): void {
    let text = this.#pieces.join('');
    const total = this.#stringLength;
    if (total > this.#keep) {
      text = text.slice(-this.#keep);
      const start = total - text.length;
      if (start % 4 !== 0) text = text.slice(4 - (start % 4));
      this.cut.set(text, total);
    }
    this.#pieces = [];
    this.#piecesLength = 0;
    this.#inString = false;
    this.#emit(JSON.stringify(text));
  }

  #emit(text: string): void {
    if (text === '') return;
    this.#out.push(text);
    this.#size += text.length;
    if (this.#size > this.#maxOutput) throw new BodyTooLargeError(this.#maxOutput);
  }
}

/**
 * Reads `body` keeping at most about `maxBytes`: whole when it fits, else with long strings cut to
 * their tails (each at most half the cap). Chunks are decoded as UTF-8 as they arrive.
 */
export async function readCappedBody(body: AsyncIterable<Uint8Array>, maxBytes: number): Promise<CappedBody> {
  const decoder = new TextDecoder('utf-8');
  const head: string[] = [];
  let bytes = 0;
  let keeper: JsonTailKeeper | null = null;
  for await (const chunk of body) {
    bytes += chunk.byteLength;
    const text = decoder.decode(chunk, { stream: true });
    if (keeper) {
      keeper.write(text);
      continue;
    }
    head.push(text);
    if (bytes > maxBytes) {
      // One cut string (half the cap) plus the rest of the document must fit in twice the cap.
      keeper = new JsonTailKeeper(Math.max(1024, Math.floor(maxBytes / 2)), maxBytes * 2);
      for (const part of head) keeper.write(part);
      head.length = 0;
    }
  }
  const rest = decoder.decode();
  if (!keeper) return { text: head.join('') + rest, bytes, cut: new Map() };
  keeper.write(rest);
  return { text: keeper.finish(), bytes, cut: keeper.cut };
}

/** Reads at most `maxBytes` of an error body and drops the rest (it is only ever summarised). */
export async function readBodyHead(body: AsyncIterable<Uint8Array>, maxBytes: number): Promise<string> {
  const decoder = new TextDecoder('utf-8');
  let text = '';
  let bytes = 0;
  for await (const chunk of body) {
    if (bytes < maxBytes) text += decoder.decode(chunk.subarray(0, maxBytes - bytes), { stream: true });
    bytes += chunk.byteLength;
  }
  return text + decoder.decode();
}
