// A small server-sent events reader for the tests and the bench: one stream over fetch, its
// events (id and data) and comment lines as they arrive, and how it ended.
export interface SseEvent {
  readonly id: string | undefined;
  readonly data: string;
}

export class SseStream {
  readonly events: SseEvent[] = [];
  readonly comments: string[] = [];
  status = 0;
  headers: Headers | undefined;
  /** Settles when the stream ends (closed by either side or failed). */
  readonly done: Promise<void>;
  readonly #abort = new AbortController();
  readonly #waiters: Array<() => void> = [];
  #ended = false;

  constructor(url: string, headers: Record<string, string> = {}) {
    this.done = this.#run(url, headers);
  }

  get ended(): boolean {
    return this.#ended;
  }

  /** The id of the last event read. */
  get lastId(): string | undefined {
    return this.events.at(-1)?.id;
  }

  /** Resolves once `test` holds (checked on each arrival), or rejects after `ms`. */
  until(test: () => boolean, ms = 20_000, what = 'the stream'): Promise<void> {
    if (test()) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`timed out waiting for ${what} (${this.events.length} events)`)),
        ms,
      );
      const check = () => {
        if (test()) {
          clearTimeout(timer);
          resolve();
        } else if (this.#ended) {
          clearTimeout(timer);
          reject(new Error(`${what}: the stream ended first (status ${this.status})`));
        } else this.#waiters.push(check);
      };
      this.#waiters.push(check);
    });
  }

  close(): void {
    this.#abort.abort();
  }

  #tell(): void {
    for (const w of this.#waiters.splice(0)) w();
  }

  async #run(url: string, headers: Record<string, string>): Promise<void> {
    try {
      const res = await fetch(url, {
        headers: { accept: 'text/event-stream', ...headers },
        signal: this.#abort.signal,
      });
      this.status = res.status;
      this.headers = res.headers;
      if (res.body === null || res.status !== 200) return;
      const decoder = new TextDecoder();
      let buffer = '';
      let id: string | undefined;
      let data: string[] = [];
      for await (const chunk of res.body) {
        buffer += decoder.decode(chunk as Uint8Array, { stream: true });
        let at = buffer.indexOf('\n');
        while (at >= 0) {
          const line = buffer.slice(0, at).replace(/\r$/, '');
          buffer = buffer.slice(at + 1);
          if (line === '') {
            if (data.length > 0) this.events.push({ id, data: data.join('\n') });
            id = undefined;
            data = [];
          } else if (line.startsWith(':')) this.comments.push(line.slice(1).trim());
          else if (line.startsWith('id:')) id = line.slice(3).trim();
          else if (line.startsWith('data:')) data.push(line.slice(5).replace(/^ /, ''));
          at = buffer.indexOf('\n');
        }
        this.#tell();
      }
    } catch {
      // aborted or cut: the stream has ended either way
    } finally {
      this.#ended = true;
      this.#tell();
    }
  }
}
