// The static folder's service worker (target/web/, scripts/build-web.sh;
// engine.js registers it, `mulino gui` has no need of it). The engine in
// WebAssembly shares memory with the page (SharedArrayBuffer: a search
// hears `stop` while it runs), which browsers allow only to a page that
// is cross-origin isolated, served with the two headers below; a static
// host does not send them, so this worker adds them to the folder's
// files as it serves them. It also keeps a copy of each, so that the
// page works offline once loaded: the network first (a new build is
// seen at once), the copy when the network fails.
'use strict';

const CACHE = 'mulino-static-v1';

self.addEventListener('install', () => self.skipWaiting());

self.addEventListener('activate', (event) => {
  event.waitUntil((async () => {
    for (const name of await caches.keys()) if (name !== CACHE) await caches.delete(name);
    await self.clients.claim();
  })());
});

self.addEventListener('fetch', (event) => {
  const request = event.request;
  if (request.method !== 'GET' || new URL(request.url).origin !== self.location.origin) return;
  // The packed databases' ranges (mulino-tb.mjs) are the network's, kept
  // by the page in a cache of its own: a 206 answer cannot be kept here.
  if (request.headers.has('range')) return;
  event.respondWith(serve(event, request));
});

async function serve(event, request) {
  let response;
  try {
    response = await fetch(request);
    if (response.ok && response.type === 'basic') {
      const copy = response.clone();
      event.waitUntil(caches.open(CACHE).then((c) => c.put(request, copy)).catch(() => {}));
    }
  } catch (e) {
    response = await caches.match(request, { ignoreSearch: true });
    if (!response) throw e;
  }
  return isolated(response);
}

// The response with the headers that isolate the page; a redirect or an
// opaque response as it is.
function isolated(response) {
  if (response.status === 0) return response;
  const headers = new Headers(response.headers);
  headers.set('Cross-Origin-Opener-Policy', 'same-origin');
  headers.set('Cross-Origin-Embedder-Policy', 'require-corp');
  return new Response(response.body, {
    status: response.status,
    statusText: response.statusText,
    headers,
  });
}
