// The engine in WebAssembly, from the thread that talks to it: it runs in
// a worker (mulino-worker.mjs), in Node.js (worker_threads) or in a
// browser (a module Worker), and hears its input through an InputRing, a
// SharedArrayBuffer that it reads even while a search runs (protocol.md,
// section 13). Browsers give SharedArrayBuffer to cross-origin isolated
// pages only.
//
//   const engine = await startEngine({ onLine: (line) => ... });
//   engine.postMessage('uci');   // a line in; lines come out to onLine
//
// Node's command line (mulino.mjs) uses the same with the output written
// straight to its file descriptors.
//
// The web board served as static files (target/web/index.html) talks to
// the same module with the JSON API that `mulino gui` answers over HTTP:
//
//   const api = await startApi();
//   const { status, body } = await api.call('session', {});

/** Input bytes from one thread to the engine's worker, in order. */
export class InputRing {
  /** The bytes one ring holds; more waits on the writer's side. */
  static BYTES = 1 << 20;
  /** What `take` returns at the end of the input. */
  static END = 'end';

  constructor(sab = new SharedArrayBuffer(16 + InputRing.BYTES)) {
    this.sab = sab;
    // [0]: bytes written, [1]: bytes taken (both modulo 2^32),
    // [2]: input closed, [3]: the writer waits for room.
    this.ctrl = new Int32Array(sab, 0, 4);
    this.bytes = new Uint8Array(sab, 16);
    this.cap = this.bytes.length;
    this.backlog = [];
    this.closing = false;
    /** Called on the reader's side when the writer waits for room. */
    this.onRoom = null;
  }

  // The writer's side.

  /** Queues `chunk` (a Uint8Array) for the reader. */
  write(chunk) {
    if (chunk.length) this.backlog.push(chunk);
    this.flush();
  }

  /** The end of the input, after what was written. */
  close() {
    this.closing = true;
    this.flush();
  }

  /** Moves what waits into the ring; call again when the reader says
   * there is room. */
  flush() {
    const { ctrl, bytes, cap } = this;
    while (this.backlog.length) {
      const w = Atomics.load(ctrl, 0);
      const room = cap - ((w - Atomics.load(ctrl, 1)) | 0);
      if (room === 0) {
        Atomics.store(ctrl, 3, 1);
        // The reader may have taken some just before it could see that.
        if (cap - ((Atomics.load(ctrl, 0) - Atomics.load(ctrl, 1)) | 0) === 0) return;
        continue;
      }
      const chunk = this.backlog[0];
      const n = Math.min(room, chunk.length);
      const at = w & (cap - 1);
      const first = Math.min(n, cap - at);
      bytes.set(chunk.subarray(0, first), at);
      if (n > first) bytes.set(chunk.subarray(first, n), 0);
      if (n === chunk.length) this.backlog.shift();
      else this.backlog[0] = chunk.subarray(n);
      Atomics.store(ctrl, 0, (w + n) | 0);
      Atomics.notify(ctrl, 0);
    }
    if (this.closing) {
      Atomics.store(ctrl, 2, 1);
      Atomics.notify(ctrl, 0);
    }
  }

  // The reader's side.

  /** All the bytes written and not yet taken, waiting at most `waitMs`
   * (0: not at all; Infinity) for some: a Uint8Array, null if none came,
   * or InputRing.END. */
  take(waitMs) {
    const { ctrl, bytes, cap } = this;
    const r = Atomics.load(ctrl, 1);
    // Closed is read first: what was written before is seen with it.
    let closed = Atomics.load(ctrl, 2);
    let w = Atomics.load(ctrl, 0);
    if (w === r) {
      if (closed) return InputRing.END;
      if (!waitMs) return null;
      Atomics.wait(ctrl, 0, w, waitMs);
      closed = Atomics.load(ctrl, 2);
      w = Atomics.load(ctrl, 0);
      if (w === r) return closed ? InputRing.END : null;
    }
    const n = (w - r) | 0;
    const out = new Uint8Array(n);
    const at = r & (cap - 1);
    const first = Math.min(n, cap - at);
    out.set(bytes.subarray(at, at + first));
    if (n > first) out.set(bytes.subarray(0, n - first), first);
    Atomics.store(ctrl, 1, (r + n) | 0);
    if (Atomics.exchange(ctrl, 3, 0) && this.onRoom) this.onRoom();
    return out;
  }
}

const node = typeof process === 'object' && !!process.versions?.node;

/** The bytes of the databases handed to the worker at a time. */
const TB_CHUNK = 4 << 20;

/**
 * Starts the engine in a worker. Options, all optional:
 * - `wasm`: the module's URL (default: mulino.wasm beside this file);
 * - `worker`: the worker script's URL (default: mulino-worker.mjs beside);
 * - `onLine(line)`: each output line, without its newline;
 * - `onStderr(text)`: what the engine says on stderr (a panic);
 * - `onExit(status)`: the session is over (`quit`, or the end of input
 *   carried out), with the binary's exit status;
 * - `outFd`, `errFd` (Node only): write stdout and stderr straight to
 *   these file descriptors instead of `onLine` and `onStderr`;
 * - `terminal`: greet as the binary greets a person at a terminal;
 * - `once`: run this one protocol command, as the binary does with its
 *   command-line arguments (`mulino perft 4`), instead of a session;
 * - `api`: answer the web board's JSON API instead of the protocol
 *   (`startApi` below).
 * Returns { postMessage(line), write(bytes), end(), terminate() }.
 */
export async function startEngine(options = {}) {
  const here = import.meta.url;
  const wasm = String(options.wasm ?? new URL('./mulino.wasm', here));
  const script = options.worker ?? new URL('./mulino-worker.mjs', here);
  const ring = new InputRing();
  const setup = {
    wasm,
    ring: ring.sab,
    outFd: options.outFd,
    errFd: options.errFd,
    terminal: !!options.terminal,
    once: options.once,
    api: !!options.api,
    // The packed databases' bytes, from this thread's fetches to the
    // worker, which waits for them (src/wasm/tb.rs).
    tb: new SharedArrayBuffer(16 + TB_CHUNK),
  };
  const tb = { ctrl: new Int32Array(setup.tb, 0, 4), data: new Uint8Array(setup.tb, 16), answer: null, at: 0 };
  let fetcher = options.tbFetcher ?? null;
  const sendChunk = () => {
    const n = Math.min(TB_CHUNK, tb.answer.length - tb.at);
    tb.data.set(tb.answer.subarray(tb.at, tb.at + n));
    tb.at += n;
    Atomics.store(tb.ctrl, 1, n);
    Atomics.store(tb.ctrl, 0, tb.at >= tb.answer.length ? 2 : 1);
    Atomics.notify(tb.ctrl, 0);
  };
  const tbFetch = async (request) => {
    if (!fetcher) {
      const { PackFetcher } = await import('./mulino-tb.mjs');
      fetcher = new PackFetcher();
    }
    tb.answer = await fetcher.answer(request);
    tb.at = 0;
    sendChunk();
  };
  const onMessage = (m) => {
    if (typeof m === 'string') options.onLine?.(m);
    else if (m.room) ring.flush();
    else if (m.tbFetch !== undefined) tbFetch(m.tbFetch);
    else if (m.tbMore) sendChunk();
    else if (m.stderr !== undefined) options.onStderr?.(m.stderr);
    else if (m.exit !== undefined) options.onExit?.(m.exit);
  };
  let worker;
  if (node) {
    const { Worker } = await import('node:worker_threads');
    worker = new Worker(script, { workerData: setup });
    worker.on('message', onMessage);
    worker.on('error', (e) => {
      options.onStderr?.(`mulino: ${e?.stack ?? e}\n`);
      options.onExit?.(134);
    });
  } else {
    worker = new Worker(script, { type: 'module' });
    worker.onmessage = (e) => onMessage(e.data);
    worker.onerror = (e) => {
      options.onStderr?.(`mulino: ${e.message}\n`);
      options.onExit?.(134);
    };
    worker.postMessage(setup);
  }
  const encoder = new TextEncoder();
  return {
    /** One line of input (a newline is added). */
    postMessage: (line) => ring.write(encoder.encode(`${line}\n`)),
    /** Input bytes as they come, lines split by the engine. */
    write: (bytes) => ring.write(bytes),
    /** The end of the input. */
    end: () => ring.close(),
    terminate: () => worker.terminate(),
  };
}

/**
 * Starts the engine in a worker as the web board's back end: the calls of
 * `mulino gui`'s JSON API (`POST /api/<call>`, src/web/api.rs), answered
 * by the same code in the module (src/wasm/api.rs). Options as for
 * `startEngine` (`wasm`, `worker`, `onStderr`, `onExit`).
 * Returns { call(name, body), terminate() }: `call` resolves to
 * `{ status, body }`, the HTTP status `mulino gui` would answer and the
 * JSON object, and rejects once the engine has stopped (a panic: a bug).
 */
export async function startApi(options = {}) {
  const waiting = new Map();
  let next = 0;
  let stopped = null;
  const fail = (why) => {
    stopped = why;
    for (const { reject } of waiting.values()) reject(new Error(why));
    waiting.clear();
  };
  let stderr = '';
  const engine = await startEngine({
    ...options,
    api: true,
    onLine: (line) => {
      const m = /^(\S+) (\d+) (.*)$/.exec(line);
      const w = m && waiting.get(m[1]);
      if (!w) return;
      waiting.delete(m[1]);
      try {
        w.resolve({ status: Number(m[2]), body: JSON.parse(m[3]) });
      } catch (e) {
        w.reject(e);
      }
    },
    onStderr: (text) => {
      stderr += text;
      options.onStderr?.(text);
    },
    onExit: (status) => {
      fail(`the engine stopped (status ${status})${stderr ? ': ' + stderr.trim() : ''}`);
      options.onExit?.(status);
    },
  });
  return {
    call(name, body = {}) {
      if (stopped) return Promise.reject(new Error(stopped));
      const id = String(++next);
      return new Promise((resolve, reject) => {
        waiting.set(id, { resolve, reject });
        engine.postMessage(`${id} ${name} ${JSON.stringify(body)}`);
      });
    },
    terminate: () => {
      engine.terminate();
      fail('the engine was stopped');
    },
  };
}
