// The packed databases over HTTP, for the engine in WebAssembly
// (src/wasm/tb.rs): the module asks for byte ranges of a packed folder's
// files in one batch; this fetches them, several at once, with range
// requests from any static host that answers them, and keeps what it
// fetched (the Cache API, under keys of its own: a 206 answer cannot be
// cached as it is), within a size it evicts from, so that a position seen
// once works offline. Node has no Cache API: there the bytes are kept in
// memory for the session.
//
// A block is checked against its SHA-256 by the module, not here: a
// damaged one is refused there whatever this hands in.

/** Fetches several ranges at once, at most this many. */
const PARALLEL = 6;

/** What the module's request names: [url, file, offset, len|null]. */
function parseRequest(text) {
  return text
    .split('\n')
    .filter((l) => l.length)
    .map((l) => {
      const [url, file, offset, len] = l.split('\t');
      return { url, file, offset: Number(offset), len: len === '-' ? null : Number(len) };
    });
}

/** The answer's bytes: per range a status byte, a u32 length, the bytes. */
function encodeAnswer(results) {
  const encoder = new TextEncoder();
  const parts = results.map((r) => (r.ok ? r.bytes : encoder.encode(r.error)));
  const total = parts.reduce((n, p) => n + 5 + p.length, 0);
  const out = new Uint8Array(total);
  const view = new DataView(out.buffer);
  let at = 0;
  results.forEach((r, i) => {
    out[at] = r.ok ? 0 : 1;
    view.setUint32(at + 1, parts[i].length, true);
    out.set(parts[i], at + 5);
    at += 5 + parts[i].length;
  });
  return out;
}

async function sha256Hex(bytes) {
  const subtle = globalThis.crypto?.subtle ?? (await import('node:crypto')).webcrypto.subtle;
  const digest = new Uint8Array(await subtle.digest('SHA-256', bytes));
  return Array.from(digest, (b) => b.toString(16).padStart(2, '0')).join('');
}

export class PackFetcher {
  /**
   * Options: `cacheBytes` (what the cache keeps at most, default 256 MB),
   * `cacheName` (the Cache API's cache, default `mulino-tb`), `fetch`
   * (the fetch function, default the global one).
   */
  constructor(options = {}) {
    this.cacheBytes = options.cacheBytes ?? 256 * 1024 * 1024;
    this.cacheName = options.cacheName ?? 'mulino-tb';
    this.fetch = options.fetch ?? globalThis.fetch.bind(globalThis);
    this.memory = new Map();
    /** Each pack's manifest hash, by URL: the cache's keys carry it. */
    this.versions = new Map();
    /** The cache's entries: key -> { bytes, used }. */
    this.entries = null;
    this.stats = { requests: 0, fromCache: 0, bytes: 0 };
  }

  async cache() {
    if (!globalThis.caches) return null;
    if (!this.opened) this.opened = globalThis.caches.open(this.cacheName);
    return this.opened;
  }

  /** The cache's list of entries with their sizes, read once. */
  async index(cache) {
    if (this.entries) return this.entries;
    this.entries = new Map();
    try {
      const r = await cache.match(this.indexKey());
      if (r) for (const [k, v] of Object.entries(await r.json())) this.entries.set(k, v);
    } catch {
      this.entries = new Map();
    }
    return this.entries;
  }

  indexKey() {
    return new URL('/.mulino-tb-cache-index', globalThis.location?.href ?? 'http://localhost/').href;
  }

  async saveIndex(cache) {
    const body = JSON.stringify(Object.fromEntries(this.entries));
    await cache.put(this.indexKey(), new Response(body));
  }

  /** Drops the least recently used entries while the cache is too large. */
  async evict(cache) {
    let total = 0;
    for (const e of this.entries.values()) total += e.bytes;
    if (total <= this.cacheBytes) return;
    const old = [...this.entries.entries()].sort((a, b) => a[1].used - b[1].used);
    for (const [key, e] of old) {
      if (total <= this.cacheBytes) break;
      await cache.delete(key);
      this.entries.delete(key);
      total -= e.bytes;
    }
  }

  /** The key a range is cached under (the pack's manifest hash in it). */
  keyOf(want) {
    const version = this.versions.get(want.url) ?? 'unknown';
    const file = new URL(want.file, want.url).href;
    return `${file}?mulino-pack=${version}&bytes=${want.offset}-${want.len}`;
  }

  async fromNetwork(want) {
    const url = new URL(want.file, want.url).href;
    const headers = {};
    if (want.len !== null) headers.Range = `bytes=${want.offset}-${want.offset + want.len - 1}`;
    this.stats.requests++;
    const r = await this.fetch(url, { headers, mode: 'cors', cache: 'no-store' });
    if (!r.ok) throw new Error(`HTTP ${r.status}`);
    let bytes = new Uint8Array(await r.arrayBuffer());
    if (want.len !== null && r.status !== 206) {
      // A host that ignores ranges sends the whole file: take the range.
      bytes = bytes.slice(want.offset, want.offset + want.len);
    }
    if (want.len !== null && bytes.length !== want.len) {
      throw new Error(`${bytes.length} bytes where ${want.len} were asked for`);
    }
    this.stats.bytes += bytes.length;
    return bytes;
  }

  /** One range: the manifest from the network first (it tells a new
   * pack), the rest from the cache first; the network's answer kept. */
  async one(want) {
    const isManifest = want.file === 'manifest.json';
    const cache = await this.cache();
    const key = this.keyOf(want);
    if (!isManifest) {
      const kept = this.memory.get(key);
      if (kept) return kept;
      if (cache) {
        const r = await cache.match(key);
        if (r) {
          this.stats.fromCache++;
          const bytes = new Uint8Array(await r.arrayBuffer());
          const entries = await this.index(cache);
          const e = entries.get(key);
          if (e) e.used = Date.now();
          return bytes;
        }
      }
    }
    let bytes;
    try {
      bytes = await this.fromNetwork(want);
    } catch (e) {
      // Offline: the manifest kept from an earlier visit.
      if (isManifest && cache) {
        const r = await cache.match(this.manifestKey(want.url));
        if (r) bytes = new Uint8Array(await r.arrayBuffer());
      }
      if (!bytes) throw e;
    }
    if (isManifest) {
      this.versions.set(want.url, await sha256Hex(bytes));
      if (cache) await cache.put(this.manifestKey(want.url), new Response(bytes));
      return bytes;
    }
    if (cache) {
      await cache.put(this.keyOf(want), new Response(bytes));
      const entries = await this.index(cache);
      entries.set(this.keyOf(want), { bytes: bytes.length, used: Date.now() });
    } else {
      this.memory.set(key, bytes);
    }
    return bytes;
  }

  manifestKey(url) {
    return `${new URL('manifest.json', url).href}?mulino-manifest`;
  }

  /** The module's request, answered: all its ranges, several at once. */
  async answer(requestText) {
    const wants = parseRequest(requestText);
    const results = new Array(wants.length);
    let next = 0;
    const worker = async () => {
      while (next < wants.length) {
        const i = next++;
        try {
          results[i] = { ok: true, bytes: await this.one(wants[i]) };
        } catch (e) {
          results[i] = { ok: false, error: String(e?.message ?? e) };
        }
      }
    };
    await Promise.all(Array.from({ length: Math.min(PARALLEL, wants.length) }, worker));
    const cache = await this.cache();
    if (cache && this.entries) {
      await this.evict(cache);
      await this.saveIndex(cache);
    }
    return encodeAnswer(results);
  }
}
