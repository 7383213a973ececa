// mulino gui: the packed databases of the board as static files (the
// engine in WebAssembly; `mulino gui --tb DIR` gives the server its own).
// Their address comes from `?tb=URL`, else the setting kept in the
// browser, else a `tb/` folder beside the page if it has one; the engine
// then fetches what each position needs from it by range requests, keeps
// it, shows the values of the position and of every move (with "Show the
// evaluation") and plays from them. Without them everything works as
// without databases. Loaded after engine.js, before app.js.
'use strict';

// A folder's URL, with its final `/`, relative to the page.
function tbFolderUrl(text) {
  const url = new URL(text.trim(), location.href).href;
  return url.endsWith('/') ? url : url + '/';
}

// Where the databases are: the query, the setting, or `tb/` beside the
// page when it holds a packed folder; null for none.
async function tbAddress() {
  const asked = new URLSearchParams(location.search).get('tb');
  if (asked) return tbFolderUrl(asked);
  if (ui.config.tbUrl) return tbFolderUrl(ui.config.tbUrl);
  if (ui.config.tbUrl === '') return null; // turned off
  try {
    const r = await fetch('tb/manifest.json', { method: 'HEAD', cache: 'no-store' });
    if (r.ok) return tbFolderUrl('tb/');
  } catch (_) { /* none */ }
  return null;
}

function showTbStatus(text) {
  $('tb-status').textContent = text;
}

// Gives the engine and the page the databases at `url` (null: none).
function useDatabases(url) {
  if (!url) {
    showTbStatus('No databases: the engine plays by search.');
    return;
  }
  $('tb-url').value = url;
  showTbStatus('Opening the databases at ' + url + '…');
  act('tablebases', { url }, () => {
    ui.tbUrl = url;
    showTbStatus('Perfect play from the databases at ' + url
      + ' (what a position needs is fetched once, then kept for offline use).');
  }, (e) => {
    ui.tbUrl = null;
    showTbStatus('The databases at ' + url + ' cannot be used: ' + e.message);
    return true;
  });
}

function setupDatabases() {
  if (ENGINE === 'server') {
    // The server's databases come from `mulino gui --tb DIR`.
    $('tb-card').hidden = true;
    return;
  }
  $('btn-tb').addEventListener('click', () => {
    const text = $('tb-url').value.trim();
    ui.config.tbUrl = text;
    saveConfig();
    useDatabases(text ? tbFolderUrl(text) : null);
  });
}

// After the engine has started: the databases, if there are any.
async function startDatabases() {
  if (ENGINE === 'server') return;
  useDatabases(await tbAddress());
}
