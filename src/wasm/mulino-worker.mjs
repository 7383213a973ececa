// The engine's worker: mulino.wasm behind the protocol, in Node.js
// (worker_threads, its setup in workerData) or in a browser (a module
// Worker, its setup the first message). mulino-engine.mjs starts it.
//
// The module is a WASI program with a few entry points of its own
// (src/wasm/mod.rs): this file gives it the WASI calls it makes (output,
// clocks, random bytes; no files) and hands it the input from the ring,
// both between commands and, through its `poll` import, while a search
// runs. The input is protocol lines, or with `setup.api` the web board's
// JSON API calls, one a line (src/wasm/api.rs), answered a line each.

import { InputRing } from './mulino-engine.mjs';

const node = typeof process === 'object' && !!process.versions?.node;

/** proc_exit, on its way out of the module. */
class Exit {
  constructor(status) {
    this.status = status;
  }
}

// WASI error numbers.
const EBADF = 8;
const ENOSYS = 52;

async function run(setup, post) {
  const fs = node ? await import('node:fs') : null;
  // Node before 19 has Web Crypto only as a module.
  const webcrypto = globalThis.crypto ?? (await import('node:crypto')).webcrypto;
  const ring = setup.ring ? new InputRing(setup.ring) : null;
  if (ring) ring.onRoom = () => post({ room: true });

  // Output: straight to a file descriptor (Node), or posted, stdout a
  // line at a time.
  const decoder = new TextDecoder();
  let partial = '';
  const writeFd = (fd, bytes) => {
    let at = 0;
    while (at < bytes.length) {
      try {
        at += fs.writeSync(fd, bytes, at);
      } catch (e) {
        // A closed pipe leaves nobody to tell, as for the binary.
        if (e.code === 'EAGAIN') continue;
        return;
      }
    }
  };
  const output = (fd, bytes) => {
    const to = fd === 1 ? setup.outFd : setup.errFd;
    if (to !== undefined) return writeFd(to, bytes);
    if (fd === 2) return post({ stderr: decoder.decode(bytes) });
    const lines = (partial + decoder.decode(bytes, { stream: true })).split('\n');
    partial = lines.pop();
    for (const line of lines) post(line);
  };

  const bytes = node
    ? fs.readFileSync(new URL(setup.wasm))
    : await (await fetch(setup.wasm)).arrayBuffer();
  const module = await WebAssembly.compile(bytes);

  let x; // the instance's exports
  const memory = () => new Uint8Array(x.memory.buffer);
  const view = () => new DataView(x.memory.buffer);
  const monotonic = () => BigInt(Math.round(performance.now() * 1e6));
  const wasi = {
    fd_write(fd, iovs, count, written) {
      if (fd !== 1 && fd !== 2) return EBADF;
      const v = view();
      const parts = [];
      let total = 0;
      for (let i = 0; i < count; i++) {
        const ptr = v.getUint32(iovs + 8 * i, true);
        const len = v.getUint32(iovs + 8 * i + 4, true);
        parts.push(memory().slice(ptr, ptr + len));
        total += len;
      }
      const all = new Uint8Array(total);
      let at = 0;
      for (const p of parts) {
        all.set(p, at);
        at += p.length;
      }
      output(fd, all);
      v.setUint32(written, total, true);
      return 0;
    },
    clock_time_get(id, _precision, out) {
      const ns = id === 0 ? BigInt(Date.now()) * 1000000n : monotonic();
      view().setBigUint64(out, ns, true);
      return 0;
    },
    random_get(ptr, len) {
      for (let at = 0; at < len; at += 65536) {
        webcrypto.getRandomValues(memory().subarray(ptr + at, ptr + Math.min(len, at + 65536)));
      }
      return 0;
    },
    environ_sizes_get(count, size) {
      view().setUint32(count, 0, true);
      view().setUint32(size, 0, true);
      return 0;
    },
    environ_get: () => 0,
    args_sizes_get(count, size) {
      view().setUint32(count, 0, true);
      view().setUint32(size, 0, true);
      return 0;
    },
    args_get: () => 0,
    // No directory is opened to the module: it has no files.
    fd_prestat_get: () => EBADF,
    sched_yield: () => 0,
    proc_exit(status) {
      throw new Exit(status);
    },
  };

  // The input, from the ring to the module.
  let over = false;
  let ended = false;
  const give = (bytes) => {
    const ptr = x.mulino_buffer(bytes.length);
    memory().set(bytes, ptr);
    return bytes.length;
  };
  const feed = (got) => {
    if (got === InputRing.END) {
      ended = true;
      return setup.api ? true : x.mulino_end() !== 0;
    }
    if (setup.api) {
      x.mulino_api_input(give(got));
      return false;
    }
    return x.mulino_input(give(got)) !== 0;
  };
  // The packed databases' bytes: asked of the thread that started the
  // worker, which fetches them and hands them over through setup.tb, a
  // chunk at a time, while this waits (src/wasm/tb.rs).
  const tbCtrl = setup.tb ? new Int32Array(setup.tb, 0, 4) : null;
  const tbData = setup.tb ? new Uint8Array(setup.tb, 16) : null;
  const mulino = {
    // Called by the search's stop checks: the lines that came meanwhile.
    poll(waitMs) {
      if (over || ended || !ring) return;
      const got = ring.take(waitMs);
      if (got !== null) over = feed(got);
    },
    tb_fetch(ptr, len) {
      if (!tbCtrl) return 0;
      const request = new TextDecoder().decode(memory().slice(ptr, ptr + len));
      Atomics.store(tbCtrl, 0, 0);
      post({ tbFetch: request });
      const parts = [];
      let total = 0;
      for (;;) {
        Atomics.wait(tbCtrl, 0, 0);
        const state = Atomics.load(tbCtrl, 0);
        const n = Atomics.load(tbCtrl, 1);
        parts.push(tbData.slice(0, n));
        total += n;
        if (state === 2) break;
        Atomics.store(tbCtrl, 0, 0);
        post({ tbMore: true });
      }
      const at = x.mulino_tb_buffer(total);
      const mem = memory();
      let o = 0;
      for (const p of parts) {
        mem.set(p, at + o);
        o += p.length;
      }
      return total;
    },
  };

  const imports = { wasi_snapshot_preview1: {}, mulino };
  for (const { module: from, name } of WebAssembly.Module.imports(module)) {
    if (from === 'wasi_snapshot_preview1') {
      imports[from][name] = wasi[name] ?? (() => ENOSYS);
    }
  }
  const instance = await WebAssembly.instantiate(module, imports);
  x = instance.exports;

  let status = 0;
  try {
    if (setup.api) x.mulino_api_init();
    else x.mulino_init(setup.terminal ? 1 : 0);
    if (setup.once !== undefined) {
      status = x.mulino_once(give(new TextEncoder().encode(setup.once)));
    } else {
      while (!over && !ended) {
        const got = ring.take(Infinity);
        if (got !== null) over = feed(got) || over;
      }
    }
  } catch (e) {
    if (e instanceof Exit) {
      status = e.status;
    } else {
      // A trap: a panic (the module aborts on one) or worse.
      output(2, new TextEncoder().encode(`mulino: ${e?.stack ?? e}\n`));
      status = 134;
    }
  }
  if (partial) post(partial);
  post({ exit: status });
}

if (node) {
  const { parentPort, workerData } = await import('node:worker_threads');
  await run(workerData, (m) => parentPort.postMessage(m));
} else {
  self.onmessage = (e) => {
    self.onmessage = null;
    run(e.data, (m) => self.postMessage(m));
  };
}
