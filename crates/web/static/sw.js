// The offline page's service worker: keeps every file of the site, so that once opened
// (or installed) the page plays with no network. The cache's name changes with each
// build (crates/web/build.sh writes the version), and old caches are dropped.
const VERSION = "BUILD";
const FILES = ["./", "index.html", "worker.js", "fanorona_web.js", "fanorona_web_bg.wasm", "manifest.webmanifest", "icon.svg"];
self.addEventListener("install", (e) => {
  e.waitUntil(caches.open(VERSION).then((c) => c.addAll(FILES)).then(() => self.skipWaiting()));
});
self.addEventListener("activate", (e) => {
  e.waitUntil(caches.keys()
    .then((keys) => Promise.all(keys.filter((k) => k !== VERSION).map((k) => caches.delete(k))))
    .then(() => self.clients.claim()));
});
self.addEventListener("fetch", (e) => {
  e.respondWith(caches.match(e.request, { ignoreSearch: true }).then((hit) => hit || fetch(e.request)));
});
