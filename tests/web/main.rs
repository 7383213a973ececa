//! `mulino gui`, the web board, through its server run in-process: the
//! HTTP layer against clients that misbehave (`http`), the JSON API
//! (`api`), and the page in headless Chromium (`browser`, and its
//! layout measured on three screens in `layout`, over the harness in
//! `chromium`; what a new player tripped over, and endgame practice, in
//! `players`; ignored unless asked for with `--include-ignored`, as they
//! need the browser); and the same page as static files against the
//! engine in WebAssembly (`static_folder`, ignored too: it also needs
//! the folder `scripts/build-web.sh` writes to `target/web/`), and packed
//! databases over HTTP (`packed`, ignored too: it needs nginx and that
//! folder). One test binary: `cargo test --test web`.

mod api;
mod browser;
mod chromium;
mod http;
mod layout;
mod packed;
mod players;
mod static_folder;
