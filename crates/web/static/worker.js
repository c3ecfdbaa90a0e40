// The offline page's engine: answers the page's API calls (docs/API.md) with the
// WebAssembly build (crates/web), off the page's thread.
import init, { Api } from "./fanorona_web.js";

const ready = init().then(() => new Api());
self.onmessage = async (e) => {
  const { id, path, request } = e.data;
  try {
    const api = await ready;
    self.postMessage({ id, ok: true, value: JSON.parse(api.call(path, JSON.stringify(request))) });
  } catch (err) {
    self.postMessage({ id, ok: false, value: String((err && err.message) || err) });
  }
};
